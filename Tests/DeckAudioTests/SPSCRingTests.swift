import Foundation
import Synchronization
import Testing
@testable import DeckAudio

@Suite struct SPSCRingTests {
    @Test func keepsOrderAndRefusesWhenFull() {
        let ring = SPSCRing<Int>(capacity: 3)
        #expect(ring.push(1) && ring.push(2) && ring.push(3))
        #expect(!ring.push(4))
        #expect(ring.pop() == 1)
        #expect(ring.push(4))
        #expect([ring.pop(), ring.pop(), ring.pop(), ring.pop()] == [2, 3, 4, nil])
    }

    @Test func aProducerAndAConsumerOnTwoThreadsLoseNothing() {
        let ring = SPSCRing<Int>(capacity: 64)
        let total = 200_000
        let done = Atomic<Bool>(false)
        Thread {
            var next = 0
            while next < total { if ring.push(next) { next += 1 } }
            done.store(true, ordering: .releasing)
        }.start()
        var expected = 0
        var inOrder = true
        while expected < total {
            if let value = ring.pop() {
                inOrder = inOrder && value == expected
                expected += 1
            }
        }
        #expect(inOrder)
        #expect(ring.pop() == nil)
    }
}
