import Glibc

/// CLOCK_MONOTONIC: what deadlines, budgets and waits are measured with (never the wall clock).
/// The project's one clock, read in the unit each caller needs.
public enum MonotonicClock {
    public static var nanoseconds: Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec * 1_000_000_000 + now.tv_nsec
    }

    public static var microseconds: Int { nanoseconds / 1_000 }

    public static var milliseconds: Int { nanoseconds / 1_000_000 }

    public static var seconds: Double { Double(nanoseconds) / 1e9 }
}
