import DeckFuzz
import DeckTestSupport
import Foundation
import Testing

/// Every input saved in Tests/Fuzz/corpus (seeds, and crashes `make fuzz` once found) goes through
/// its fuzz target once: what was fixed stays fixed.
@Suite struct FuzzCorpusTests {
    @Test(arguments: FuzzTarget.allCases)
    func theSavedCorpusRunsCleanly(target: FuzzTarget) throws {
        let folder = Paths.repoRoot + "/Tests/Fuzz/corpus/" + target.rawValue
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(names.count >= 3)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            target.run(bytes)
        }
    }
}
