import Glibc

extension DynamicRun {
    /// Renders `seconds` of it with `deckd --freewheel --play` (a render to a file, as fast as it
    /// goes) and compares the file's silence, after it first sounds, with the real-time run's from
    /// its launch: more is a render that returned silence for what its own thread had not made yet.
    mutating func judgeFreewheel(work: String, output: String, since launched: Int) {
        let frames = Int(seconds * 48_000)
        // Silent in real time too: render.silent says so, and there is nothing to compare.
        guard let paced = OutputLevel.silentBlocks(of: output, from: launched, count: frames) else { return }
        let folder = work + "/freewheel", file = work + "/freewheel.opus", log = work + "/freewheel.log"
        guard let real = realpath(bundle, nil) else { return report("render.freewheel", "not judged: \(bundle) cannot be resolved") }
        let resolved = String(cString: real)
        free(real)
        mkdir(folder, 0o755)
        symlink(resolved, folder + "/" + (resolved.split(separator: "/").last.map(String.init) ?? "plugin.deckplugin"))
        let process: Spawned
        do {
            process = try Spawned(deckd, ["--config", work + "/deck.json", "--plugins", folder, "--state", "none", "--insecure-plugins",
                                          "--socket", work + "/freewheel.sock", "--freewheel", "--duration", "\(seconds)",
                                          "--play", id + (item.map { ":" + $0 } ?? ""), "--sink", "file:\(file)"], log: log)
        } catch {
            return report("render.freewheel", "not judged: \(error)")
        }
        // A live source renders in real time, so the run may take `seconds` and more.
        let deadline = Monotonic.now + 3 * seconds + 10
        while process.isRunning && Monotonic.now < deadline { usleep(20_000) }
        process.stop()
        let span = "its first \(Int(seconds * 1_000)) ms"
        guard let rendered = OutputLevel.silentBlocks(of: file, from: 0, count: frames) else {
            let last = Spawned.tail(log).split(separator: "\n").suffix(2).joined(separator: " | ")
            return report("render.freewheel", "rendered with deckd --freewheel it never sounded in \(span), where in real time it did: \(last)")
        }
        if rendered.silent > paced.silent + DynamicRun.freewheelSilenceAllowance {
            report("render.freewheel", "rendered with deckd --freewheel, \(rendered.silent * 20) of the \(rendered.blocks * 20) ms after it "
                   + "first sounded (in \(span)) were silent, against \(paced.silent * 20) of \(paced.blocks * 20) ms in real time: when the host "
                   + "is_freewheeling, let render wait (up to 40 ms a call) for what a thread of your own is still making, and render a "
                   + "live source in real time")
        }
    }

    /// Silent 20 ms blocks a freewheel render may have beyond the real-time run's (a busy machine's).
    static let freewheelSilenceAllowance = 5
}
