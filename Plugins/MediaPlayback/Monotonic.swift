import Glibc

/// The monotonic clock, which is never set back as the wall clock can be.
public enum Monotonic {
    public static var nanoseconds: Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    public static var milliseconds: Int { nanoseconds / 1_000_000 }

    public static var seconds: Double { Double(nanoseconds) / 1e9 }
}
