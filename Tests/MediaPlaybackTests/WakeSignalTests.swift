import Glibc
import MediaPlayback
import Testing

/// The decode thread's wake-up: a timed wait lasts its time on the monotonic clock, a signal ends it.
@Suite struct WakeSignalTests {
    static func seconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    @Test func aTimedWaitLastsItsTimeUnlessSignalled() {
        let wake = WakeSignal()
        var start = WakeSignalTests.seconds()
        wake.wait(milliseconds: 120)
        let waited = WakeSignalTests.seconds() - start
        #expect(waited >= 0.119 && waited < 2, "\(waited) s")
        wake.signal()
        start = WakeSignalTests.seconds()
        wake.wait(milliseconds: 5_000)
        #expect(WakeSignalTests.seconds() - start < 1, "a signal given before the wait ends it at once")
        let signaller = WorkerThread.start {
            usleep(50_000)
            wake.signal()
        }
        start = WakeSignalTests.seconds()
        wake.wait(milliseconds: 5_000)
        #expect(WakeSignalTests.seconds() - start < 2.5, "a signal from another thread ends it")
        signaller?.join()
    }
}
