import Glibc

/// The machine a run was measured on, for BENCHMARKS.md.
enum MachineInfo {
    static func describe() -> String {
        let model = (try? readText("/proc/cpuinfo"))?.split(separator: "\n")
            .first { $0.hasPrefix("model name") }?.split(separator: ":").last?.trimmingPrefix(" ") ?? "unknown CPU"
        let memory = (try? readText("/proc/meminfo"))?.split(separator: "\n").first?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
        return "\(model), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores, \(memory / 1024 / 1024) GiB"
    }

    static func readText(_ path: String) throws -> String {
        guard let file = fopen(path, "r") else { throw BenchError("cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
