@testable import DeckSession
import Testing

/// A context's index (what the interaction matrix is laid out by) is its place among all
/// contexts, in declaration order.
@Suite struct AudioContextTests {
    @Test func indexesFollowTheDeclarationOrder() {
        #expect(AudioContext.allCases.map(\.index) == Array(0..<AudioContext.allCases.count))
        #expect(AudioContext.count == AudioContext.allCases.count)
        #expect(AudioContext.allCases.sorted() == AudioContext.allCases)
    }
}
