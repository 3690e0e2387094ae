import DeckTestSupport
import Foundation
import Testing
@testable import DeckBase

/// The kernel tells of each address this machine gains or loses, and the question asked after it
/// sees it, without waiting for the loop to turn.
@Suite struct AddressChangesTests {
    @Test func anAddressAddedOrRemovedIsToldToTheNextQuestionAndQuietIsToldAsQuiet() throws {
        let changes = AddressChanges()
        // Quiet once what came before is read (other tests may change addresses meanwhile: a few tries).
        var quiet = !changes.happened()
        for _ in 0..<50 where !quiet {
            usleep(100_000)
            quiet = !changes.happened()
        }
        #expect(quiet, "never quiet")
        let lo = LoopbackAddressForTest()
        try lo.add()
        #expect(changes.happened(), "the address added")
        try lo.remove()
        #expect(changes.happened(), "the address removed")
    }
}
