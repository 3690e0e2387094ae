import Glibc
import Testing
@testable import DeckEmbed

@Suite struct PosixMutexTests {
    /// Four threads adding at once lose no update: each addition sees the last one's result.
    @Test func concurrentUpdatesAreNeverLost() {
        let counter = PosixMutex(0)
        let threads = (0..<4).map { _ in
            var thread = pthread_t()
            pthread_create(&thread, nil, { context in
                let counter = Unmanaged<PosixMutex<Int>>.fromOpaque(context!).takeUnretainedValue()
                for _ in 0..<100_000 { counter.withLock { $0 += 1 } }
                return nil
            }, Unmanaged.passUnretained(counter).toOpaque())
            return thread
        }
        for thread in threads { pthread_join(thread, nil) }
        #expect(counter.withLock { $0 } == 400_000)
    }

    /// A typed error thrown under the lock reaches the caller, and the lock is free again after it.
    @Test func anErrorThrownInsideReleasesTheLock() {
        struct Refused: Error {}
        let value = PosixMutex([1])
        #expect(throws: Refused.self) { try value.withLock { (_: inout [Int]) throws(Refused) in throw Refused() } }
        #expect(value.withLock { $0.append(2); return $0 } == [1, 2])
    }

    /// A lock taken again by the thread holding it is a bug: it traps, as Swift's `Mutex` does,
    /// rather than hang the process.
    @Test func lockingAgainFromTheHolderTrapsRatherThanHangs() async {
        await #expect(processExitsWith: .failure) {
            let value = PosixMutex(0)
            value.withLock { _ in value.withLock { $0 += 1 } }
        }
    }
}
