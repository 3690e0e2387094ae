import Glibc

/// Milliseconds on the monotonic clock, which is never set back as the wall clock can be.
enum MonotonicMilliseconds {
    static var now: Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000 + time.tv_nsec / 1_000_000
    }
}
