import DeckTestSupport
import Glibc
import Testing
@testable import DeckIsolation

/// A data folder handed to a host's new uid is handed whole, whatever bytes its files are named in.
@Suite struct DataFolderOwnerTests {
    /// The owner of the file `name` (raw bytes) in `folder`, or nil.
    private func owner(_ folder: String, _ name: [UInt8]) -> uid_t? {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]
        var info = stat()
        return path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &info) } == 0 ? info.st_uid : nil
        }
    }

    private func make(_ folder: String, _ name: [UInt8]) {
        let path = Array(folder.utf8) + [UInt8(ascii: "/")] + name + [0]
        let descriptor = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o600) }
        }
        close(descriptor)
    }

    @Test func filesNamedInBytesThatAreNotUTF8AreHandedOverWithTheRest() throws {
        try #require(geteuid() == 0, "handing files to another uid takes root")
        let dir = TemporaryDirectory()
        let data = dir.path + "/org.example.app"
        mkdir(data, 0o700)
        mkdir(data + "/cache", 0o700)
        let latin1: [UInt8] = Array("Mot".utf8) + [0xF6] + Array("rhead.json".utf8)  // "Motörhead.json" in Latin-1
        make(data, latin1)
        make(data, Array("z-after.json".utf8))
        make(data + "/cache", [0xFF, 0xFE])
        make(data + "/cache", Array("cover.jpg".utf8))

        let uid: uid_t = 61_234
        #expect(DataFolderOwner.give(data, to: uid) == nil)
        #expect(owner(dir.path, Array("org.example.app".utf8)) == uid)
        for (folder, name) in [(data, latin1), (data, Array("z-after.json".utf8)), (data, Array("cache".utf8)),
                               (data + "/cache", [0xFF, 0xFE]), (data + "/cache", Array("cover.jpg".utf8))] {
            #expect(owner(folder, name) == uid, "\(folder)/\(String(decoding: name, as: UTF8.self))")
        }
    }
}
