import DeckTestSupport
import Foundation
import Testing
@testable import DeckPlugins

/// Each plugin's folder under the data root: made when missing, never anywhere but where named.
@Suite struct DataFolderTests {
    @Test func aPluginsFolderIsMadeUnderTheRootPrivateToIt() throws {
        let dir = TemporaryDirectory()
        let folder = try DataFolder.make(root: dir.path + "/apps", id: "org.example.radio")
        #expect(folder == dir.path + "/apps/org.example.radio")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }

    /// The root is made part by part from "/": a relative one would land at the top of the file system.
    @Test func aRelativeRootIsRefused() {
        #expect(throws: DataFolderError.self) { try DataFolder.make(root: "data-never-made", id: "org.example.radio") }
        #expect(!FileManager.default.fileExists(atPath: "/data-never-made"))
    }
}
