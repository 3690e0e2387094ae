import DeckRuntime
import Foundation

/// An in-process runtime set up for streaming tests: plugins loaded and active, the output
/// started on demand, the loop turned until the output ends.
public final class StreamingHarness {
    public let runtime: Runtime
    public let log = LogCapture(level: .info)
    public private(set) var finished = false

    /// With `loop`, several harnesses share one loop (turning it runs them all). With `time`, the runtime's decisions (timeouts, coalescing, saves, restarts) wait for the
    /// test to advance it; the audio and the plugins' I/O stay on the real clock.
    public init(freewheel: Bool, seconds: Double? = nil, sinks: [String] = [], isolation: IsolationPolicy.Mode? = nil,
                time: VirtualScheduler? = nil, loop: EventLoop? = nil, configure: (inout RuntimeConfiguration) -> Void = { _ in }) throws {
        var configuration = RuntimeConfiguration.forTests(isolation: isolation)
        configuration.audio.freewheel = freewheel
        configuration.audio.durationSamples = seconds.map { Int($0 * 48_000) }
        configuration.sinks = sinks
        configuration.session.alwaysActive = true  // the output runs from start(), as a broadcast would
        configure(&configuration)
        runtime = try Runtime(configuration: configuration, logger: log.logger, loop: loop, scheduler: time)
        runtime.onOutputFinished = { [weak self] in self?.finished = true }
    }

    /// Loads and activates a bundle.
    @discardableResult
    public func load(_ bundle: String) throws -> PluginInstance {
        guard let plugin = runtime.plugins.load(bundle) else {
            throw CommandFailure(description: "cannot load \(bundle): \(runtime.plugins.loadFailures.last?.description ?? "")")
        }
        try plugin.activate()
        return plugin
    }

    public func start() throws { try runtime.startOutput() }

    /// Turns the loop until the output has finished (a duration was set) and every sink has
    /// written all of it, or `seconds` pass.
    @discardableResult
    public func runUntilFinished(seconds: Double = 60) -> Bool {
        turnLoop(runtime.loop, seconds: seconds) { finished && runtime.sinks.list.allSatisfy(\.status.finished) }
    }

    /// Shuts the runtime down and turns the loop until no handle is left: each file sink's writer
    /// thread has put its last pages (the EOS) on disk, so the file can be judged whole.
    @discardableResult
    public func shutDown(seconds: Double = 10) -> Bool {
        runtime.shutdown()
        let deadline = Date().addingTimeInterval(seconds)
        while runtime.loop.runNoWait() {
            if Date() > deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Turns the loop for `seconds` (real-time streaming).
    public func run(for seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        turnLoop(runtime.loop, seconds: seconds + 1) { Date() > end }
    }

    /// Turns the loop while `process` runs, up to `seconds`.
    public func run(while process: ChildProgram, seconds: Double = 60) {
        turnLoop(runtime.loop, seconds: seconds) { !process.isRunning }
        if process.isRunning { process.terminate() }
    }

    public func sink(_ uriPrefix: String) -> SinkInfo? { runtime.sinks.list.first { $0.uri.hasPrefix(uriPrefix) } }

    deinit { runtime.shutdown() }
}

/// A blocking TCP client on loopback for talking to the HTTP sink from a helper thread.
public enum LoopbackClient {
    /// Connects to 127.0.0.1:`port`, from the IPv4 address `from` when given; returns the socket or -1.
    public static func connect(port: Int, receiveBuffer: Int32? = nil, from: String? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        func withAddress(_ host: String, port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr(host)
            return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        let bound = from.map { withAddress($0, port: 0) { bind(fd, $0, $1) } } ?? 0
        if bound != 0 || withAddress("127.0.0.1", port: port, { Glibc.connect(fd, $0, $1) }) != 0 { close(fd); return -1 }
        return fd
    }

    /// The IPv4 address of an interface of this machine that is up and not loopback, if any.
    public static func interfaceAddress() -> String? {
        SocketAddress.interfaceAddresses().first { !$0.isIPv6 && !$0.isLoopback }?.host
    }

    public static func send(_ fd: Int32, _ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes (or `limit` bytes, or `seconds` pass).
    public static func readAll(_ fd: Int32, limit: Int = 1 << 20, seconds: Int = 10) -> [UInt8] {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while bytes.count < limit {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
