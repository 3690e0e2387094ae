import DeckFuzz
import DeckTestSupport
import Foundation
import Testing

/// Deck's JSON parser and jansson agree on every saved fuzz input that is JSON, and on thousands of
/// mutations of each: both refuse, or both read the same value.
@Suite struct JSONDifferentialTests {
    static let folders = ["json", "rpc", "config", "manifest", "state", "template"]

    @Test(arguments: folders)
    func theParsersAgreeOnTheCorpusAndItsMutations(folder: String) throws {
        let path = Paths.repoRoot + "/Tests/Fuzz/corpus/" + folder
        var random = SplitMix(seed: UInt64(folder.utf8.count))
        var checked = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
            let seed = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
            #expect(FuzzTarget.parsersDisagree(on: seed) == nil)
            for _ in 0..<400 {
                let mutated = JSONDifferentialTests.mutate(seed, &random)
                if let disagreement = FuzzTarget.parsersDisagree(on: mutated) {
                    Issue.record("\(folder)/\(name), mutated to \(String(decoding: mutated, as: UTF8.self).debugDescription): \(disagreement)")
                    return
                }
                checked += 1
            }
        }
        #expect(checked >= 1_200)
    }

    /// One to three edits: a byte replaced by one JSON cares about, a byte dropped, a cut, a run repeated.
    static func mutate(_ seed: [UInt8], _ random: inout SplitMix) -> [UInt8] {
        var bytes = seed
        let tricky = Array("{}[],:\"\\ 0-1e.eE+tfnu\u{0}\u{1F}".utf8) + [0x80, 0xC3, 0xED, 0xF4, 0xFF]
        for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
            let at = Int(random.next() % UInt64(bytes.count))
            switch random.next() % 4 {
            case 0: bytes[at] = tricky[Int(random.next() % UInt64(tricky.count))]
            case 1: bytes.remove(at: at)
            case 2: bytes.removeSubrange(at...)
            default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 8)], at: at)
            }
        }
        return bytes
    }
}
