import Foundation
import Testing
import DeckBase

/// A relative path means the working directory, made explicit when it is read.
@Suite struct AbsolutePathTests {
    let working = FileManager.default.currentDirectoryPath

    @Test func anAbsolutePathIsKept() {
        #expect(AbsolutePath.resolve("/var/lib/deck") == "/var/lib/deck")
    }

    @Test func aRelativePathIsJoinedToTheWorkingDirectory() {
        #expect(AbsolutePath.resolve("data") == working + "/data")
        #expect(AbsolutePath.resolve("./data/apps") == working + "/data/apps")
        #expect(AbsolutePath.resolve(".") == working)
    }
}
