import Foundation

/// A real Icecast server on a free loopback port, fed by `ffmpeg` sources; its admin interface
/// changes a mount's title as a broadcaster's software does. Ends its processes when it goes away.
public final class IcecastServer {
    public let port: Int
    public static let password = "deck"
    private let dir: TemporaryDirectory
    private let server: ChildProgram
    private var sources: [String: ChildProgram] = [:]

    public init() throws {
        let dir = TemporaryDirectory()
        chmod(dir.path, 0o777)  // icecast drops to nobody and logs here
        self.dir = dir
        (server, port) = try IcecastServer.start(in: dir.path)
    }

    /// icecast2 answering on a free port. It exits at once when its port was taken between the
    /// kernel's pick and its own bind: then it starts again on another, up to three times.
    private static func start(in folder: String) throws -> (ChildProgram, Int) {
        var failure = ""
        for _ in 0..<3 {
            let port = try FreePort.tcp()
            try configuration(port: port, folder: folder).write(toFile: folder + "/icecast.xml", atomically: true, encoding: .utf8)
            // Until it has opened its error log, icecast says why it stops on stderr.
            let server = try ChildProgram("/usr/bin/icecast2", ["-c", folder + "/icecast.xml"], output: .file(folder + "/stderr.log"))
            let settled = waitFor { !server.isRunning || (try? get("/status-json.xsl", port: port)) != nil }
            if settled && server.isRunning { return (server, port) }
            let said = ["stderr.log", "error.log"].map { (try? String(contentsOfFile: folder + "/" + $0, encoding: .utf8)) ?? "" }.joined()
            failure = "icecast2 did not answer on port \(port) (" + (server.isRunning ? "still running" : "exited") + "): \(said.suffix(1000))"
            guard !server.isRunning else {
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
                break  // it ran and did not answer: another port would not help
            }
        }
        throw CommandFailure(description: failure)
    }

    private static func configuration(port: Int, folder: String) -> String {
        """
        <icecast>
          <limits><clients>50</clients><sources>8</sources><burst-size>65535</burst-size><source-timeout>5</source-timeout></limits>
          <authentication><source-password>\(password)</source-password><admin-user>admin</admin-user>
            <admin-password>\(password)</admin-password></authentication>
          <hostname>127.0.0.1</hostname>
          <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
          <paths><basedir>/usr/share/icecast2</basedir><logdir>\(folder)</logdir><webroot>/usr/share/icecast2/web</webroot>
            <adminroot>/usr/share/icecast2/admin</adminroot></paths>
          <logging><accesslog>access.log</accesslog><errorlog>error.log</errorlog><loglevel>3</loglevel></logging>
          <security><chroot>0</chroot>\(getuid() == 0 ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : "")</security>
        </icecast>
        """
    }

    deinit {
        for process in Array(sources.values) + [server] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public func url(_ mount: String) -> String { "http://127.0.0.1:\(port)\(mount)" }

    /// Feeds `mount` with a sine of `frequency` Hz (amplitude `volume`) encoded by `codec`
    /// ("opus", "vorbis", "mp3", "aac"), with Ogg comments `title`/`artist` where the format has them.
    public func startSource(_ mount: String, codec: String, frequency: Int, volume: Double = 0.25,
                            title: String? = nil, artist: String? = nil) throws {
        let (encoder, format, type): ([String], String, String) = switch codec {
        case "opus": (["-c:a", "libopus", "-b:a", "96k"], "ogg", "application/ogg")
        case "vorbis": (["-c:a", "libvorbis", "-b:a", "96k"], "ogg", "application/ogg")
        case "aac": (["-c:a", "aac", "-b:a", "96k"], "adts", "audio/aac")
        default: (["-c:a", "libmp3lame", "-b:a", "128k"], "mp3", "audio/mpeg")
        }
        sources[mount] = try ChildProgram("/usr/bin/ffmpeg", ["-loglevel", "error", "-re", "-f", "lavfi", "-i", "sine=f=\(frequency):r=48000",
                                                              "-af", "volume=\(volume * 2)", "-ac", "2"] + encoder
            + (title.map { ["-metadata", "title=\($0)"] } ?? []) + (artist.map { ["-metadata", "artist=\($0)"] } ?? [])
            + ["-content_type", type, "-f", format, "icecast://source:\(IcecastServer.password)@127.0.0.1:\(port)\(mount)"])
        guard IcecastServer.waitFor({ ((try? IcecastServer.get("/status-json.xsl", port: port)) ?? "").contains(url(mount)) }) else {
            throw CommandFailure(description: "the \(mount) source did not connect to icecast")
        }
    }

    /// Ends the source of `mount` at once, as a broadcaster's encoder that crashed, and waits until
    /// Icecast no longer lists the mount (so a source started next is not taken for this one).
    public func killSource(_ mount: String) {
        guard let source = sources.removeValue(forKey: mount) else { return }
        kill(source.processIdentifier, SIGKILL)
        source.waitUntilExit()
        _ = IcecastServer.waitFor { !((try? IcecastServer.get("/status-json.xsl", port: port)) ?? url(mount)).contains(url(mount)) }
    }

    /// Sets the title of an MP3/AAC mount through the admin interface (ICY `StreamTitle`).
    public func setTitle(_ mount: String, _ song: String) throws {
        let query = "mount=\(mount)&mode=updinfo&song=\(song.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? song)"
        let answer = try IcecastServer.get("/admin/metadata?\(query)", port: port, user: "admin")
        guard answer.contains("<return>1</return>") else { throw CommandFailure(description: "icecast refused the title: \(answer)") }
    }

    /// How many listeners `mount` has now, by Icecast's own count.
    public func listeners(_ mount: String) throws -> Int {
        let status = try JSONSerialization.jsonObject(with: Data(try IcecastServer.get("/status-json.xsl", port: port).utf8)) as? [String: Any]
        let stats = status?["icestats"] as? [String: Any]
        let sources = (stats?["source"] as? [[String: Any]]) ?? (stats?["source"] as? [String: Any]).map { [$0] } ?? []
        return sources.first { ($0["listenurl"] as? String) == url(mount) }?["listeners"] as? Int ?? 0
    }

    private static func get(_ path: String, port: Int, user: String? = nil) throws -> String {
        let result = try runProgram("/usr/bin/curl", ["-sf", "--max-time", "5"] + (user.map { ["-u", "\($0):\(IcecastServer.password)"] } ?? [])
                                    + ["http://127.0.0.1:\(port)\(path)"], timeout: 10)
        guard result.status == 0 else { throw CommandFailure(description: "GET \(path): curl \(result.status)") }
        return result.output
    }

    private static func waitFor(_ condition: () -> Bool) -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            usleep(100_000)
        }
        return false
    }
}

/// Free loopback ports for servers the tests start (never a fixed one).
public enum FreePort {
    /// A TCP port nothing listens on now (the kernel's pick for port 0).
    public static func tcp() throws -> Int {
        let (fd, port) = try held(listening: false)
        close(fd)
        return port
    }

    /// A loopback TCP socket bound to a port of the kernel's pick, listening when asked: the port
    /// stays taken until the caller closes `fd`.
    public static func held(listening: Bool = true) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, !listening || listen(fd, 1) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw CommandFailure(description: "no free port: \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
