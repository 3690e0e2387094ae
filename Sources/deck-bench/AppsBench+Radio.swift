import CFFmpeg
import Glibc

extension AppsBench {
    /// Radio's time from `apps.launch` to sound (its screen says Live) on a local Icecast MP3
    /// mount, against a bare libavformat open + probe + first decoded frame of the same mount in
    /// this process (the floor of starting that stream), median of `runs`.
    func radio(_ work: TemporaryFolder) throws {
        guard let port = freePort() else { throw BenchError("no free port") }
        let ice = work.path + "/icecast"
        mkdir(ice, 0o777)
        chmod(ice, 0o777)
        let owner = getuid() == 0 ? "<changeowner><user>nobody</user><group>nogroup</group></changeowner>" : ""
        try TemporaryFolder.write("""
            <icecast><limits><sources>2</sources><burst-size>65535</burst-size></limits>
            <authentication><source-password>deck</source-password><admin-password>deck</admin-password></authentication>
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
        let config = work.path + "/radio.json"
        try TemporaryFolder.write("{\"dataDirectory\": \"\(data)\"}", to: config)
        let deckd = try Subprocess(options.bin + "/deckd", ["--config", config, "--plugins", options.bin + "/plugins", "--state", "none",
                                                            "--sink", "file:\(work.path)/radio.opus", "--socket", work.path + "/radio.sock"])
        defer { deckd.finish(signal: SIGTERM) }
        guard deckd.millisecondsUntil("deckd: ready") != nil else { throw BenchError("deckd did not start:\n\(deckd.output.suffix(2000))") }
        let ctl = "'\(options.bin)/deckctl' --socket '\(work.path)/radio.sock'"
        var app: [Double] = [], bare: [Double] = []
        for _ in 0..<max(3, options.runs / 3) {
            bare.append(firstFrame(url))
            _ = TemporaryFolder.shell("\(ctl) stop > /dev/null 2>&1")
            let start = Subprocess.now()
            _ = TemporaryFolder.shell("\(ctl) launch org.deck.radio Bench > /dev/null")
            while TemporaryFolder.shell("\(ctl) ui org.deck.radio | grep -q 'Bench · Live'") != 0 {
                guard Subprocess.now() - start < 20_000_000_000 else { throw BenchError("Radio did not play") }
            }
            app.append(Double(Subprocess.now() - start) / 1e6)
        }
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        print("## apps: Radio from launch to sound (local Icecast MP3 mount, \(app.count) runs, median)\n")
        print("| case | ms | ratio |")
        print("|---|---|---|")
        print("| bare libavformat open + probe + first decoded frame | \(Int(median(bare))) | 1.00× |")
        print("| Radio: `deckctl launch` → its screen says Live (includes two deckctl runs and the 0.75 s prebuffer) "
              + "| \(Int(median(app))) | \(String(format2: median(app) / median(bare)))× |\n")
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
