import CFFmpeg
import Glibc

/// The first-party Library app's scan of 10,000 files (hard links of one tagged MP3 in 100
/// folders), cold and incremental, in a deckd of its own with the app in its host process, against
/// a bare FFmpeg loop in this process that opens and probes the same files (the floor of reading
/// their tags), and the resident memory the tracks add to the host process; then Radio's start,
/// its reconnection, and the CPU each app costs while it plays against Tone.
struct AppsBench {
    var options: BenchOptions
    static let files = 10_000

    func run() throws {
        let work = try TemporaryFolder()
        let music = work.path + "/music"
        mkdir(music, 0o755)
        guard TemporaryFolder.shell("ffmpeg -v error -nostdin -f lavfi -i sine=f=440:d=1 -metadata title=Song -metadata artist=Band "
                                    + "-metadata album=Album '\(work.path)/song.mp3'") == 0 else { throw BenchError("ffmpeg could not make the track") }
        var paths: [String] = []
        for folder in 0..<100 {
            mkdir("\(music)/\(folder)", 0o755)
            for file in 0..<(AppsBench.files / 100) {
                let path = "\(music)/\(folder)/\(file).mp3"
                guard link("\(work.path)/song.mp3", path) == 0 else { throw BenchError("cannot link \(path)") }
                paths.append(path)
            }
        }
        let config = work.path + "/deck.json"
        try TemporaryFolder.write("{\"dataDirectory\": \"\(work.path)/data\", \"isolation\": {\"mediaFolders\": [\"\(music)\"]}}", to: config)

        print("## apps: the Library's scan of \(AppsBench.files) files\n")
        print("| case | ms | files/s | ratio to a bare FFmpeg probe loop |")
        print("|---|---|---|---|")
        let bare = bareProbe(paths)
        print("| bare FFmpeg open + probe + close, one thread | \(Int(bare)) | \(Int(Double(AppsBench.files) / max(bare, 1) * 1000)) | 1.00× |")
        var residents: [Int] = []
        for (name, expected) in [("cold (every file read)", "\(AppsBench.files) read, 0 unchanged"),
                                 ("incremental (nothing changed)", "0 read, \(AppsBench.files) unchanged")] {
            let (milliseconds, resident) = try scan(config: config, expecting: expected)
            residents.append(resident)
            let rate = Int(Double(AppsBench.files) / max(milliseconds, 1) * 1000)
            print("| Library \(name) | \(Int(milliseconds)) | \(rate) | \(String(format2: milliseconds / bare))× |")
        }
        let empty = try scan(config: emptyConfig(work), expecting: "0 tracks").resident
        let perThousand = (residents[1] - empty) / (AppsBench.files / 1000)
        print("\nThe Library's host process holds \(residents[1] / 1024) MiB with \(AppsBench.files) tracks and \(empty / 1024) MiB "
              + "with none: \(perThousand) KiB per 1,000 tracks.\n")
        try radio(work)
    }

    /// A config whose media folder is empty.
    private func emptyConfig(_ work: TemporaryFolder) throws -> String {
        mkdir(work.path + "/empty", 0o755)
        let path = work.path + "/empty.json"
        try TemporaryFolder.write("{\"dataDirectory\": \"\(work.path)/data-empty\", \"isolation\": {\"mediaFolders\": [\"\(work.path)/empty\"]}}", to: path)
        return path
    }

    /// Runs deckd until the Library logs its scan; returns the time it logged and its host's resident KiB.
    private func scan(config: String, expecting: String) throws -> (milliseconds: Double, resident: Int) {
        let folder = String(config[..<config.lastIndex(of: "/")!])
        let deckd = try Subprocess(options.bin + "/deckd", ["--config", config, "--plugins", options.bin + "/plugins", "--state", "none",
                                                            "--sink", "file:\(folder)/out-\(UInt64.random(in: 0...UInt64.max)).opus",
                                                            "--socket", folder + "/deck.sock"])
        defer { deckd.finish(signal: SIGTERM) }
        guard deckd.millisecondsUntil(" ms; ") != nil,
              let line = deckd.output.split(separator: "\n").last(where: { $0.contains("library: ") && $0.contains(" ms;") }), line.contains(expecting),
              let after = line.split(separator: ") in ").last, let milliseconds = Double(after.prefix { $0 != " " }) else {
            throw BenchError("the Library did not report its scan:\n\(deckd.output.suffix(2000))")
        }
        usleep(300_000)
        let pid = AppsBench.hostProcess(of: "org.deck.library", ctl: "'\(options.bin)/deckctl' --socket '\(folder)/deck.sock'", folder: folder) ?? 0
        let status = (try? MachineInfo.readText("/proc/\(pid)/status")) ?? ""
        let rss = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        return (milliseconds, rss)
    }

    /// The host process of `app`: hosts are forked by a zygote (one command line for all), so
    /// deckctl names it.
    static func hostProcess(of app: String, ctl: String, folder: String) -> pid_t? {
        let listing = "\(folder)/apps.txt"
        _ = TemporaryFolder.shell("\(ctl) apps > '\(listing)'")
        let row = ((try? MachineInfo.readText(listing)) ?? "").split(separator: "\n").first { $0.hasPrefix(app + " ") } ?? ""
        let words = row.split(separator: " ")
        return words.firstIndex(of: "process").flatMap { words.indices.contains($0 + 1) ? pid_t(words[$0 + 1]) : nil }
    }

    /// Opens and probes each file with libavformat, as the scan's floor.
    private func bareProbe(_ paths: [String]) -> Double {
        av_log_set_level(AV_LOG_ERROR)  // (its warnings about the 1 s MP3's probe score, 10,000 times)
        let start = Subprocess.now()
        for path in paths {
            var context: UnsafeMutablePointer<AVFormatContext>?
            guard avformat_open_input(&context, path, nil, nil) >= 0 else { continue }
            _ = avformat_find_stream_info(context, nil)
            avformat_close_input(&context)
        }
        return Double(Subprocess.now() - start) / 1e6
    }
}
