/// One thing deck-check verifies, with the guide section that states it.
struct CheckRule: Sendable, Equatable {
    enum Severity: String, Sendable, Comparable {
        case info, warning, error

        static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
        private var rank: Int { self == .info ? 0 : self == .warning ? 1 : 2 }
    }

    /// Whether the rule reads the bundle only, or runs its code under a test runtime.
    enum Stage: String, Sendable { case `static`, dynamic }

    var id: String
    var severity: Severity
    var stage: Stage
    var summary: String
    /// Where the rule is written down: a file and section in docs/.
    var doc: String

    static let all: [CheckRule] = [
        CheckRule(id: "manifest.valid", severity: .error, stage: .static, summary: "manifest.json is JSON of the documented shape",
                  doc: "plugin-guide.md#the-manifest"),
        CheckRule(id: "manifest.abi", severity: .error, stage: .static, summary: "the manifest's abi is the runtime's ABI major version",
                  doc: "plugin-guide.md#the-manifest"),
        CheckRule(id: "bundle.library", severity: .error, stage: .static,
                  summary: "the library named by the manifest is a regular file inside the bundle", doc: "plugin-guide.md#the-manifest"),
        CheckRule(id: "bundle.ownership", severity: .error, stage: .static,
                  summary: "nothing in the bundle is writable by group or others (the runtime refuses it)", doc: "plugin-guide.md#the-manifest"),
        CheckRule(id: "bundle.readable", severity: .warning, stage: .static,
                  summary: "the bundle's files are readable by others (host processes run as a uid of their own)", doc: "plugin-guide.md#your-sandbox"),
        CheckRule(id: "library.elf", severity: .error, stage: .static, summary: "the library is an ELF shared object for this machine",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "library.entry", severity: .error, stage: .static, summary: "the library exports deck_plugin_entry",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "library.needed", severity: .error, stage: .static,
                  summary: "every library it needs can be found by the dynamic loader", doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "library.exports", severity: .warning, stage: .static,
                  summary: "C functions besides deck_plugin_entry are not exported (they could clash with other plugins' or the runtime's)",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "entitlements.used", severity: .info, stage: .static,
                  summary: "a C library that declares entitlements names an extension they are for (deck.audio, deck.session, deck.ui, deck.content)",
                  doc: "plugin-guide.md#the-manifest"),
        CheckRule(id: "permissions.network", severity: .warning, stage: .static,
                  summary: "a library that opens sockets declares the network permission", doc: "plugin-guide.md#your-sandbox"),
        CheckRule(id: "permissions.services", severity: .warning, stage: .static,
                  summary: "a library that links a local service's client (D-Bus, systemd, Avahi, PulseAudio, PipeWire) declares the services permission",
                  doc: "plugin-guide.md#your-sandbox"),
        CheckRule(id: "load.accepted", severity: .error, stage: .dynamic, summary: "the runtime loads and initialises it",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "lifecycle.activate", severity: .error, stage: .dynamic, summary: "it activates and plays its default item (or the one asked for)",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "lifecycle.default-item", severity: .info, stage: .dynamic,
                  summary: "it refused its default item with a reason (its playback is checked with --item)", doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "lifecycle.survives", severity: .error, stage: .dynamic, summary: "its host process never crashes or hangs during the run",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "lifecycle.restart", severity: .error, stage: .dynamic,
                  summary: "unloaded (deactivate, destroy) and loaded again, it plays again", doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "lifecycle.repeat", severity: .error, stage: .dynamic,
                  summary: "loaded, played and unloaded three times in one process (inline, its library kept loaded), it works each time",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "lifecycle.leftovers", severity: .warning, stage: .dynamic,
                  summary: "after destroy no process it started is left for its host to end, and (checked inline) no thread it started still runs, no descriptor it opened stays open, memory does not grow cycle after cycle",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "render.invalid", severity: .error, stage: .dynamic, summary: "render writes no NaN or infinity",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.clipping", severity: .warning, stage: .dynamic, summary: "render writes no sample beyond full scale (±1.0)",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.underrun", severity: .warning, stage: .dynamic, summary: "render fills every frame it is asked for",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.late", severity: .info, stage: .dynamic,
                  summary: "frames its host process delivered after the mix's deadline (a slow render, or a busy machine)",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.denormal", severity: .warning, stage: .dynamic,
                  summary: "render writes no denormal (subnormal) samples: they slow every stage after it", doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.time", severity: .info, stage: .dynamic,
                  summary: "how long its render calls took, p50, p99 and max (inline, in the lifecycle runtime)", doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.deadline", severity: .warning, stage: .dynamic,
                  summary: "its render calls never block (sleep, lock, I/O) and their median stays under 2 ms of the 20 ms frame",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.freewheel", severity: .warning, stage: .dynamic,
                  summary: "rendered to a file with deckd --freewheel, its audio has no more silence than in real time (a render fed by a thread of its own waits for it)",
                  doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "render.silent", severity: .warning, stage: .dynamic,
                  summary: "an app that holds focus with an open stream and says it plays is heard", doc: "plugin-guide.md#audio-deckaudio"),
        CheckRule(id: "focus.loss", severity: .warning, stage: .dynamic,
                  summary: "after losing focus for good it closes its stream and stops saying it plays", doc: "plugin-guide.md#audio-focus-decksession"),
        CheckRule(id: "focus.transient", severity: .warning, stage: .dynamic,
                  summary: "after a transient loss (a call) ends, it plays again", doc: "plugin-guide.md#audio-focus-decksession"),
        CheckRule(id: "focus.duck", severity: .warning, stage: .dynamic,
                  summary: "ducked by a navigation prompt it keeps its focus and stream, and plays on after", doc: "plugin-guide.md#audio-focus-decksession"),
        CheckRule(id: "nowplaying.published", severity: .warning, stage: .dynamic,
                  summary: "an app playing music publishes now playing with a title", doc: "plugin-guide.md#now-playing-decknow-playing-abi-11"),
        CheckRule(id: "commands.answered", severity: .error, stage: .dynamic,
                  summary: "the remote commands it enables (play, pause) are answered with success", doc: "plugin-guide.md#now-playing-decknow-playing-abi-11"),
        CheckRule(id: "ui.limits", severity: .info, stage: .dynamic,
                  summary: "its screen fits the display limits at each display profile, parked and driving (what the runtime hid)",
                  doc: "plugin-guide.md#templates-deckui-abi-12"),
        CheckRule(id: "ui.handlers", severity: .warning, stage: .dynamic,
                  summary: "each selection it is handed is completed within 2 s", doc: "plugin-guide.md#templates-deckui-abi-12"),
        CheckRule(id: "ui.images", severity: .warning, stage: .dynamic,
                  summary: "the images it keeps in the runtime do not grow each time the display attaches again (remove_image those no longer shown)",
                  doc: "plugin-guide.md#templates-deckui-abi-12"),
        CheckRule(id: "content.loads", severity: .warning, stage: .dynamic,
                  summary: "each level of its content tree it is asked for loads within 2 s, without error", doc: "plugin-guide.md#content-trees-deckcontent-abi-12"),
        CheckRule(id: "threads.host-calls", severity: .error, stage: .dynamic,
                  summary: "host calls tagged [loop-thread] are made on the loop thread (the runtime refuses them from any other)",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "calls.slow", severity: .warning, stage: .dynamic,
                  summary: "no call into its code holds the loop thread for a second or more", doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "calls.time", severity: .info, stage: .dynamic,
                  summary: "calls that held the loop over 100 ms but under a second (on a loaded machine, a host process's round trips count too)",
                  doc: "plugin-guide.md#the-abi-c"),
        CheckRule(id: "runtime.warnings", severity: .warning, stage: .dynamic,
                  summary: "the runtime logs no other warning or error about it (timeouts, refused calls, limits)", doc: "plugin-guide.md#the-abi-c"),
    ]

    static func named(_ id: String) -> CheckRule? { all.first { $0.id == id } }
}

/// What a check found: the rule, why, and where.
struct Finding: Sendable, Equatable {
    var rule: CheckRule
    var reason: String
    var location: String
}
