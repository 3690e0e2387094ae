import CFFmpeg
import Glibc

extension AppsBench {
    /// Radio on a local Icecast MP3 mount against a bare libavformat open + probe + first decoded
    /// frame of the same mount in this process (the floor of starting that stream), medians: from
    /// `apps.launch` to its screen saying Live, from `ui.select` of its row to first audio in the
    /// output, and from a dropped connection to Live again; then the CPU each app costs playing.
    func radio(_ work: TemporaryFolder) throws {
        guard let port = freePort() else { throw BenchError("no free port") }
        let ice = work.path + "/icecast"
        mkdir(ice, 0o777)
        chmod(ice, 0o777)
        let owner = getuid() == 0 ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : ""
        try TemporaryFolder.write("""
            <icecast><limits><sources>2</sources><burst-size>65535</burst-size></limits>
            <authentication><source-password>deck</source-password><admin-user>admin</admin-user><admin-password>deck</admin-password></authentication>
            <listen-socket><port>\(port)</port><bind-address>127.0.0.1</bind-address></listen-socket>
            <paths><basedir>/usr/share/icecast2</basedir><logdir>\(ice)</logdir><webroot>/usr/share/icecast2/web</webroot></paths>
            <security><chroot>0</chroot>\(owner)</security></icecast>
            """, to: ice + "/icecast.xml")
        let server = try Subprocess("/usr/bin/icecast2", ["-c", ice + "/icecast.xml"])
        defer { server.finish(signal: SIGKILL) }
        usleep(500_000)
        let url = "http://127.0.0.1:\(port)/live.mp3"
        let source = try Subprocess("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-re", "-f", "lavfi", "-i", "sine=f=440:r=48000", "-ac", "2",
                                                        "-c:a", "libmp3lame", "-b:a", "128k", "-content_type", "audio/mpeg", "-f", "mp3",
                                                        "icecast://source:deck@127.0.0.1:\(port)/live.mp3"])
        defer { source.finish(signal: SIGKILL) }
        usleep(1_500_000)
        let data = work.path + "/radio-data"
        mkdir(data, 0o755)
        mkdir(data + "/org.deck.radio", 0o755)
        try TemporaryFolder.write("{\"station\": [{\"name\": \"Bench\", \"streamURL\": \"\(url)\"}]}", to: data + "/org.deck.radio/stations.json")
        // A two-minute track for the Library's turn in the CPU table.
        mkdir(work.path + "/long", 0o755)
        let track = work.path + "/long/long.flac"
        guard TemporaryFolder.shell("ffmpeg -v error -nostdin -f lavfi -i sine=f=330:r=48000:d=120 -ac 2 -metadata title=Long '\(track)'") == 0 else {
            throw BenchError("ffmpeg could not make the track")
        }
        let config = work.path + "/radio.json"
        try TemporaryFolder.write("{\"dataDirectory\": \"\(data)\", \"isolation\": {\"mediaFolders\": [\"\(work.path)/long\"]}}", to: config)
        let output = work.path + "/radio.opus"
        let deckd = try Subprocess(options.bin + "/deckd", ["--config", config, "--plugins", options.bin + "/plugins", "--state", "none",
                                                            "--sink", "file:\(output)", "--socket", work.path + "/radio.sock"])
        defer { deckd.finish(signal: SIGTERM) }
        guard deckd.millisecondsUntil("deckd: ready") != nil else { throw BenchError("deckd did not start:\n\(deckd.output.suffix(2000))") }
        let ctl = "'\(options.bin)/deckctl' --socket '\(work.path)/radio.sock'"
        let live = { TemporaryFolder.shell("\(ctl) ui org.deck.radio | grep -q 'Bench · Live'") == 0 }
        func waitUntil(_ condition: () -> Bool, since start: UInt64, or failure: String) throws {
            while !condition() {
                guard Subprocess.now() - start < 20_000_000_000 else { throw BenchError(failure) }
            }
        }

        var launched: [Double] = [], bare: [Double] = []
        for _ in 0..<max(3, options.runs / 3) {
            bare.append(firstFrame(url))
            _ = TemporaryFolder.shell("\(ctl) stop > /dev/null 2>&1")
            let start = Subprocess.now()
            _ = TemporaryFolder.shell("\(ctl) launch org.deck.radio Bench > /dev/null")
            try waitUntil(live, since: start, or: "Radio did not play")
            launched.append(Double(Subprocess.now() - start) / 1e6)
        }

        // ui.select of the station's row (not the now-playing row) on Radio's screen, the foreground app now, to its first
        // audio in the output: the output's frame count at the select, found again in the file.
        let screen = work.path + "/screen.txt"
        _ = TemporaryFolder.shell("\(ctl) ui org.deck.radio > '\(screen)'")
        guard let line = ((try? MachineInfo.readText(screen)) ?? "").split(separator: "\n").first(where: { $0.contains("] Bench") && !$0.contains(" · ") }),
              let open = line.firstIndex(of: "["), let close = line.firstIndex(of: "]"), open < close else {
            throw BenchError("no Bench row on Radio's screen")
        }
        let row = line[line.index(after: open)..<close]
        var selected: [Int] = []
        for _ in launched {
            _ = TemporaryFolder.shell("\(ctl) stop > /dev/null 2>&1")
            usleep(1_000_000)
            selected.append(outputFrames(ctl: ctl, folder: work.path))
            let start = Subprocess.now()
            _ = TemporaryFolder.shell("\(ctl) select \(row) > /dev/null")
            try waitUntil(live, since: start, or: "Radio did not play from ui.select")
            usleep(500_000)
        }
        let heard = try AppsBench.decode(output, work: work)
        let firstAudio = selected.filter { $0 < heard.count }.map { frame in
            Double((heard[frame...].firstIndex { abs($0) > 0.01 } ?? heard.count) - frame) / 48
        }
        guard !firstAudio.isEmpty else { throw BenchError("the output file is shorter than the frames the runtime counted") }

        // The listener's connection cut by Icecast's admin interface while the source goes on: the
        // app plays what FFmpeg had already received, shows Reconnecting, then Live again.
        let earlier = AppsBench.silences(in: heard).count
        var noticed: [Double] = [], back: [Double] = []
        for _ in launched {
            _ = TemporaryFolder.shell("curl -sf -u admin:deck 'http://127.0.0.1:\(port)/admin/listclients?mount=/live.mp3' > '\(work.path)/clients.xml'")
            let clients = (try? MachineInfo.readText(work.path + "/clients.xml")) ?? ""
            guard let id = clients.split(separator: "<ID>").dropFirst().first?.prefix(while: \.isNumber) else { throw BenchError("no listener:\n\(clients)") }
            let start = Subprocess.now()
            _ = TemporaryFolder.shell("curl -sf -u admin:deck 'http://127.0.0.1:\(port)/admin/killclient?mount=/live.mp3&id=\(id)' > /dev/null")
            try waitUntil({ !live() }, since: start, or: "Radio did not notice the drop")
            let reconnecting = Subprocess.now()
            try waitUntil(live, since: start, or: "Radio did not come back")
            noticed.append(Double(reconnecting - start) / 1e6)
            back.append(Double(Subprocess.now() - reconnecting) / 1e6)
            usleep(1_000_000)
        }
        let silences = AppsBench.silences(in: try AppsBench.decode(output, work: work)).dropFirst(earlier)

        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        let floor = median(bare)
        print("## apps: Radio on a local Icecast MP3 mount (\(launched.count) runs each, medians)\n")
        print("| case | ms | ratio |")
        print("|---|---|---|")
        print("| bare libavformat open + probe + first decoded frame | \(Int(floor)) | 1.00× |")
        print("| `deckctl launch` → its screen says Live (two deckctl runs; the 0.75 s prebuffer, filled by Icecast's burst) "
              + "| \(Int(median(launched))) | \(String(format2: median(launched) / floor))× |")
        print("| `ui.select` of its row → first audio in the output (frames counted by the runtime, found in the file) "
              + "| \(Int(median(firstAudio))) | \(String(format2: median(firstAudio) / floor))× |")
        print("| a dropped connection: its screen saying Reconnecting → Live again (0.5 s first backoff, then the open) "
              + "| \(Int(median(back))) | \(String(format2: median(back) / floor))× |\n")
        print("The listener's connection was cut \(back.count) times by Icecast's admin interface (`killclient`), the source "
              + "going on. Radio played on what FFmpeg had already received for \(Int(median(noticed))) ms (median) before it "
              + "showed Reconnecting; silence heard in the output over the \(back.count) drops (runs of 20 ms and more under "
              + "−40 dBFS, the file sink decoded by ffmpeg): \(silences.isEmpty ? "none" : silences.map { "\(Int($0)) ms" }.joined(separator: ", ")).\n")
        try cpu(ctl: ctl, deckd: deckd.pid, folder: work.path, track: track)
    }

    /// CPU time of each app playing, its host process and deckd, against Tone's: over `seconds`
    /// each, after two seconds of settling.
    private func cpu(ctl: String, deckd: pid_t, folder: String, track: String, seconds: Double = 10) throws {
        print("## apps: CPU while playing (host processes, \(Int(seconds)) s each; ms of CPU per second)\n")
        print("| app | its host process | deckd | host ratio to Tone |")
        print("|---|---|---|---|")
        var tone = 0.0
        for (app, item) in [("org.deck.tone", "sine-440"), ("org.deck.radio", "Bench"), ("org.deck.library", track)] {
            guard TemporaryFolder.shell("\(ctl) launch \(app) '\(item)' > /dev/null") == 0 else { throw BenchError("\(app) did not launch") }
            usleep(2_000_000)
            guard let host = AppsBench.hostProcess(of: app, ctl: ctl, folder: folder) else { throw BenchError("no host process for \(app)") }
            let host0 = AppsBench.cpuSeconds(host), deckd0 = AppsBench.cpuSeconds(deckd), start = Subprocess.now()
            usleep(UInt32(seconds * 1e6))
            let wall = Double(Subprocess.now() - start) / 1e9
            let hostCPU = (AppsBench.cpuSeconds(host) - host0) / wall * 1000, deckdCPU = (AppsBench.cpuSeconds(deckd) - deckd0) / wall * 1000
            if app == "org.deck.tone" { tone = hostCPU }
            print("| \(app) | \(String(format2: hostCPU)) | \(String(format2: deckdCPU)) | \(String(format2: hostCPU / max(tone, 0.01)))× |")
        }
        print("")
    }

    /// The CPU time (user + system, seconds) process `pid` has used.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        let stat = (try? MachineInfo.readText("/proc/\(pid)/stat")) ?? ""
        guard let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The frames the runtime's output has made so far.
    private func outputFrames(ctl: String, folder: String) -> Int {
        _ = TemporaryFolder.shell("\(ctl) --json status > '\(folder)/status.json'")
        let status = (try? MachineInfo.readText(folder + "/status.json")) ?? ""
        guard let key = status.firstRange(of: "\"frames\"") else { return 0 }
        return Int(status[key.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }) ?? 0
    }

    /// An Opus file decoded by ffmpeg: 48 kHz, mono.
    static func decode(_ path: String, work: TemporaryFolder) throws -> [Float] {
        let raw = work.path + "/decoded.f32"
        guard TemporaryFolder.shell("ffmpeg -v error -nostdin -y -i '\(path)' -ac 1 -ar 48000 -f f32le '\(raw)'") == 0,
              let file = fopen(raw, "rb") else { throw BenchError("ffmpeg could not decode \(path)") }
        defer { fclose(file) }
        var samples: [Float] = [], chunk = [Float](repeating: 0, count: 48_000)
        while case let count = fread(&chunk, 4, chunk.count, file), count > 0 { samples += chunk[..<count] }
        return samples
    }

    /// The runs of silence (ms; under −40 dBFS for 20 ms and more) between sounds.
    static func silences(in samples: [Float]) -> [Double] {
        var runs: [Double] = [], quiet = 0, heard = false
        for sample in samples {
            if abs(sample) < 0.01 {
                quiet += 1
                continue
            }
            if heard, quiet >= 960 { runs.append(Double(quiet) / 48) }
            heard = true
            quiet = 0
        }
        return runs
    }

    private func firstFrame(_ url: String) -> Double {
        let start = Subprocess.now()
        var context: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        av_dict_set(&options, "formatprobesize", "32768", 0)
        av_dict_set(&options, "probesize", "32768", 0)
        av_dict_set(&options, "analyzeduration", "500000", 0)
        defer { av_dict_free(&options) }
        guard avformat_open_input(&context, url, nil, &options) >= 0 else { return 0 }
        defer { avformat_close_input(&context) }
        _ = avformat_find_stream_info(context, nil)
        let packet = av_packet_alloc()
        defer { var freed = packet; av_packet_free(&freed) }
        _ = av_read_frame(context, packet)
        return Double(Subprocess.now() - start) / 1e6
    }

    private func freePort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
