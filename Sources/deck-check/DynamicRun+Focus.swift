import DeckBase
import Glibc

/// How it reacts to each focus change the integrator can cause, as the plugin guide says it must
/// (docs/plugin-guide.md#audio-focus-decksession): a transient loss is a pause it comes back from,
/// a duck is the runtime's to make (it plays on), a loss for good ends its playing.
extension DynamicRun {
    /// Whether it holds focus with its stream open.
    func holds(_ runtime: RuntimeConnection) -> Bool {
        let holds = (try? runtime.call("session.get"))?["holders"]?.arrayValue?.contains { $0["owner"]?.stringValue == id } ?? false
        return holds && app(runtime)?["streaming"]?.boolValue == true
    }

    /// Whether it plays: holds focus, its stream open, now playing saying so.
    func plays(_ runtime: RuntimeConnection) -> Bool {
        let nowPlaying = try? runtime.call("nowPlaying.get")
        return holds(runtime) && nowPlaying?["owner"]?.stringValue == id && nowPlaying?["playbackState"]?.stringValue == "playing"
    }

    /// Polls `condition` every 50 ms for up to `seconds`.
    func within(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Monotonic.now + seconds
        while true {
            if condition() { return true }
            guard Monotonic.now < deadline else { return false }
            usleep(50_000)
        }
    }

    /// A phone call takes focus for a while (transient): once it ends, the app plays again.
    mutating func judgeTransientLoss(_ runtime: RuntimeConnection) {
        guard (try? runtime.call("session.request", ["context": "call", "type": "gainTransient", "name": "deck-check"]))?["result"]?.stringValue == "granted" else { return }
        usleep(300_000)
        _ = try? runtime.call("session.abandon", ["name": "deck-check"])
        if !within(1.5, { plays(runtime) }) {
            report("focus.transient", "a call took focus for 0.3 s (a transient loss) and ended, but 1.5 s later it does not play again: "
                   + "it should pause (the runtime holds its stream) and resume when focus comes back with should_resume")
        }
    }

    /// A navigation prompt ducks it: the runtime lowers it, it keeps its focus and stream and plays on.
    mutating func judgeDuck(_ runtime: RuntimeConnection) {
        guard (try? runtime.call("session.request", ["context": "navigation", "type": "gainTransientMayDuck", "name": "deck-check"]))?["result"]?.stringValue == "granted" else { return }
        usleep(300_000)
        let during = holds(runtime)
        _ = try? runtime.call("session.abandon", ["name": "deck-check"])
        let after = within(1.5) { plays(runtime) }
        if !during || !after {
            report("focus.duck", "ducked by a navigation prompt it \(during ? "did not play on after it ended" : "stopped playing") "
                   + "(the runtime lowers a ducked stream itself, or pauses it when you asked for pausesOnDuck; stop only on a loss)")
        }
    }

    /// Music focus taken for good by the integrator: the app lets go of its stream and now playing.
    mutating func judgeFocusLoss(_ runtime: RuntimeConnection) {
        guard (try? runtime.call("session.request", ["context": "music", "type": "gain", "name": "deck-check"]))?["result"]?.stringValue == "granted" else { return }
        usleep(500_000)
        let streaming = app(runtime)?["streaming"]?.boolValue ?? false
        let nowPlaying = try? runtime.call("nowPlaying.get")
        let says = nowPlaying?["owner"]?.stringValue == id && nowPlaying?["playbackState"]?.stringValue == "playing"
        if streaming || says {
            report("focus.loss", "half a second after losing music focus for good it still \(streaming ? "keeps its stream open" : "")"
                   + "\(streaming && says ? " and " : "")\(says ? "says it plays" : ""): it should stop (or pause) and close its stream")
        }
        _ = try? runtime.call("session.abandon", ["name": "deck-check"])
    }

}
