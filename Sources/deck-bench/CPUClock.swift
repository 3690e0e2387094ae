import Glibc

/// Wall and CPU time of a piece of work, measured together.
struct Measurement {
    var wall: Double
    var cpu: Double

    /// Runs `body` and returns its wall time and the process's CPU time (all threads) in seconds.
    static func of(_ body: () throws -> Void) rethrows -> Measurement {
        let wall0 = Subprocess.now(), cpu0 = processCPU()
        try body()
        return Measurement(wall: Double(Subprocess.now() - wall0) / 1e9, cpu: processCPU() - cpu0)
    }

    /// CPU time of finished child processes, for timing external tools.
    static func children(_ body: () throws -> Void) rethrows -> Measurement {
        var before = rusage(), after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        let wall0 = Subprocess.now()
        try body()
        let wall = Double(Subprocess.now() - wall0) / 1e9
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        return Measurement(wall: wall, cpu: seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime))
    }

    static func processCPU() -> Double { cpu(of: CLOCK_PROCESS_CPUTIME_ID) }

    /// Seconds on a CPU-time clock: the process's, or a thread's (`pthread_getcpuclockid`).
    static func cpu(of clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func seconds(_ value: timeval) -> Double { Double(value.tv_sec) + Double(value.tv_usec) / 1e6 }
}

extension Array where Element == Measurement {
    /// The run with the median wall time.
    var median: Measurement { sorted { $0.wall < $1.wall }[count / 2] }
}
