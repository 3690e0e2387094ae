import Glibc

/// CLOCK_MONOTONIC: what deadlines, budgets and waits are measured with (never the wall clock).
public enum MonotonicClock {
    public static var nanoseconds: Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }
}
