import DeckTestSupport
import Glibc
import Testing
@testable import DeckEmbed

/// What one runtime alone writes, among handles in one process.
extension EmbeddingAPITests {
    /// Runtimes in one process are apart as two deckds are: one state file, and one
    /// `dataDirectory`, is one runtime's.
    @Test func aSecondHandleGivenTheSameStateFileOrDataFoldersIsRefusedUntilTheFirstIsDestroyed() throws {
        let dir = TemporaryDirectory()
        let config = #"{"logLevel": "error", "state": {"path": "\#(dir.path)/state.json"}}"#
        let first = try create(config)
        var error: UnsafeMutablePointer<CChar>?
        #expect(deck_runtime_create(config, &error) == nil)
        #expect(error.map { String(cString: $0) }?.contains("is kept by another runtime (process \(getpid()))") == true)
        deck_runtime_free(error)
        #expect(deck_runtime_destroy(first) == 0)
        #expect(deck_runtime_destroy(try create(config)) == 0)

        // So are the apps' data folders: one handle's at a time, let go when it is destroyed.
        let data = #"{"logLevel": "error", "dataDirectory": "\#(dir.path)/apps"}"#
        let holder = try create(data)
        #expect(deck_runtime_create(data, &error) == nil)
        #expect(error.map { String(cString: $0) }?.contains("(dataDirectory) are kept by another runtime (process \(getpid()))") == true)
        deck_runtime_free(error)
        #expect(deck_runtime_destroy(holder) == 0)
        #expect(deck_runtime_destroy(try create(data)) == 0)
    }
}
