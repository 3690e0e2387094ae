@testable import DeckBase
import Testing

/// Where deckd and its clients meet unless told.
@Suite struct UnixSocketTests {
    @Test func theControlSocketIsInTheRuntimeFolderWhenItIsAnAbsolutePath() {
        #expect(UnixSocket.controlPath(runtimeDirectory: "/run/user/1000", uid: 1000) == "/run/user/1000/deck.sock")
        #expect(UnixSocket.controlPath(runtimeDirectory: nil, uid: 1000) == "/tmp/deck-1000.sock")
        #expect(UnixSocket.controlPath(runtimeDirectory: "", uid: 1000) == "/tmp/deck-1000.sock")
        // Relative to whichever folder each was started in, deckd and deckctl would not meet.
        #expect(UnixSocket.controlPath(runtimeDirectory: "run", uid: 0) == "/tmp/deck-0.sock")
        #expect(UnixSocket.controlPath(runtimeDirectory: "./run", uid: 0) == "/tmp/deck-0.sock")
    }
}
