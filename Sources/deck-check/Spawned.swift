import Glibc

/// The test runtime's process: its output goes to a log file; stopping it waits for it.
final class Spawned {
    let pid: pid_t
    private var status: Int32?

    /// Starts `path`; `environment` entries ("NAME=value") are added to this process's.
    init(_ path: String, _ arguments: [String], log: String, environment: [String] = []) throws(CheckError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            inherited.append(String(cString: pointer))
            entry += 1
        }
        let envp: [UnsafeMutablePointer<CChar>?] = (inherited + environment).map { strdup($0) } + [nil]
        defer { envp.forEach { free($0) } }
        let result = posix_spawn(&child, path, &actions, nil, argv, envp)
        guard result == 0 else { throw .setup("cannot start \(path): \(String(cString: strerror(result)))") }
        pid = child
    }

    var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid { status = raw }
        return status == nil
    }

    /// How it ended ("exited with status 0", "was killed by signal 9"), or nil while it runs.
    var ending: String? {
        guard !isRunning, let status else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(signal)"
    }

    /// What `deckd` could not do, with how it ended if it did and the end of its log.
    func failure(_ what: String, log: String) -> String {
        var said = Spawned.tail(log)
        while said.last?.isNewline == true { said.removeLast() }
        return "deckd \(what)" + (ending.map { " (it \($0))" } ?? "") + (said.isEmpty ? "; its log is empty" : ":\n\(said)")
    }

    /// SIGTERM, then SIGKILL after 5 s.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<100 where isRunning { usleep(50_000) }
        if isRunning {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
            status = raw
        }
    }

    static func text(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        while case let count = fread(&chunk, 1, chunk.count, file), count > 0, bytes.count < 16 << 20 { bytes += chunk[..<count] }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func tail(_ path: String) -> String { String(text(path).suffix(2_000)) }
}
