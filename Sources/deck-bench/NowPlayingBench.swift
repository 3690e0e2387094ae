import DeckRuntime
import Glibc

/// Now playing: what an update costs with 50 subscribed clients (coalesced against published
/// every time, side by side), how much coalescing saves at 100 updates/s, and how fast the HMI
/// can read the state over deckd's socket.
struct NowPlayingBench {
    var options: BenchOptions

    /// A C plugin that owns now playing and publishes on demand: item "updates-N" makes N metadata
    /// changes, one per loop turn (each from its `on_callback`, as a plugin reporting from its own
    /// thread would); item "ticks" changes the title 100 times a second from a timer thread.
    static let source = """
        #define _POSIX_C_SOURCE 200809L
        #include <deck/deck.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>

        typedef struct { deck_plugin_t plugin; const deck_host_t *host; unsigned long updates; int ticking; long remaining; pthread_t thread; } np_t;
        static const deck_plugin_descriptor_t desc = { DECK_ABI_VERSION_INIT, "org.deck.bench.nowplaying", "NP", "1.0.0", NULL, NULL, {0} };

        static void update(np_t *n) {
            char title[64];
            snprintf(title, sizeof title, "track %lu", n->updates++);
            deck_now_playing_info_t info = { .title = title, .duration = 200, .rate = 1, .playback_state = DECK_PLAYBACK_PLAYING };
            const deck_host_now_playing_t *np = n->host->get_extension(n->host, DECK_EXT_NOW_PLAYING);
            np->set_info(n->host, &info);
        }
        static void *tick(void *arg) {
            np_t *n = arg;
            struct timespec step = { 0, 10000000 };
            while (n->ticking) { n->host->request_callback(n->host); nanosleep(&step, NULL); }
            return NULL;
        }
        static deck_status_t start(const deck_plugin_t *p, const char *item) {
            np_t *n = p->plugin_data;
            const deck_host_session_t *session = n->host->get_extension(n->host, DECK_EXT_SESSION);
            deck_focus_request_t request = { "music", DECK_FOCUS_GAIN, 0, { NULL, NULL } };
            int32_t result = 0;
            if (session->request_focus(n->host, &request, &result) != DECK_OK || result != DECK_FOCUS_GRANTED) return DECK_E_STATE;
            if (item && strncmp(item, "updates-", 8) == 0) {
                n->remaining = atol(item + 8);
                if (n->remaining > 0) n->host->request_callback(n->host);
            } else if (item && strcmp(item, "ticks") == 0 && !n->ticking) {
                n->ticking = 1;
                pthread_create(&n->thread, NULL, tick, n);
            }
            return DECK_OK;
        }
        static void stop(const deck_plugin_t *p) {
            np_t *n = p->plugin_data;
            if (n->ticking) { n->ticking = 0; pthread_join(n->thread, NULL); }
        }
        static uint32_t render(const deck_plugin_t *p, uint32_t frames, float *out) { (void)p; memset(out, 0, frames * 8); return frames; }
        static const deck_plugin_audio_t audio = { start, stop, render, {0} };
        static deck_status_t ok(const deck_plugin_t *p) { (void)p; return DECK_OK; }
        static void deactivate(const deck_plugin_t *p) { stop(p); }
        static void destroy(const deck_plugin_t *p) { stop(p); free(p->plugin_data); }
        static const void *extension(const deck_plugin_t *p, const char *id) { (void)p; return strcmp(id, DECK_EXT_AUDIO) ? NULL : &audio; }
        static void callback(const deck_plugin_t *p) {
            np_t *n = p->plugin_data;
            if (n->remaining > 0) {
                update(n);
                if (--n->remaining > 0) n->host->request_callback(n->host);
            } else if (n->ticking) {
                update(n);
            }
        }
        static const deck_plugin_t *create(const deck_host_t *host, const char *id) {
            (void)id;
            np_t *n = calloc(1, sizeof *n);
            n->host = host;
            n->plugin = (deck_plugin_t){ .desc = &desc, .plugin_data = n, .init = ok, .activate = ok, .deactivate = deactivate,
                                         .destroy = destroy, .get_extension = extension, .on_callback = callback };
            return &n->plugin;
        }
        static bool entry_init(const char *path) { (void)path; return true; }
        static void entry_deinit(void) {}
        static const deck_plugin_entry_t entry = { DECK_ABI_VERSION_INIT, entry_init, entry_deinit, create, {0} };
        const deck_plugin_entry_t *deck_plugin_entry(void) { return &entry; }
        """

    func run() throws {
        print("## nowplaying (a C plugin owning now playing; 50 in-process subscribers of nowPlaying.changed)\n")
        let work = try TemporaryFolder()
        let bundle = work.path + "/NP.deckplugin"
        mkdir(bundle, 0o755)
        try TemporaryFolder.write(NowPlayingBench.source, to: work.path + "/np.c")
        guard TemporaryFolder.shell("cc -std=c11 -O2 -Wall -Wextra -Werror -shared -fPIC -pthread -I '\(Bench.sdkInclude())' "
                                    + "-o '\(bundle)/libnp.so' '\(work.path)/np.c'") == 0 else {
            throw BenchError("cc could not build the now-playing bench plugin")
        }
        try TemporaryFolder.write(#"{"id": "org.deck.bench.nowplaying", "name": "NP", "version": "1.0.0", "abi": 1, "library": "libnp.so", "entitlements": ["audio"]}"#,
                                  to: bundle + "/manifest.json")

        let updates = 20_000
        let coalesced = try updateCost(bundle, updates: updates, coalesceMilliseconds: 100)
        let everyTime = try updateCost(bundle, updates: updates, coalesceMilliseconds: 0)
        print("| \(updates) metadata updates through deck.now-playing, one per loop turn | notifications per subscriber | updates per loop CPU second | vs publishing every update |")
        print("|---|---|---|---|")
        print("| published every time, to 50 subscribers (reference) | \(everyTime.sent) | \(Int(everyTime.rate)) | 1.00× |")
        print("| coalesced (nowPlaying.coalesceMs 100) | \(coalesced.sent) | \(Int(coalesced.rate)) | \(String(format2: coalesced.rate / everyTime.rate))× |")

        let ticks = try tickRatio(bundle, seconds: 3)
        print("\n| 100 title changes a second for 3 s | updates | nowPlaying.changed per subscriber | coalescing ratio |")
        print("|---|---|---|---|")
        print("| coalesced (100 ms) | \(ticks.updates) | \(ticks.sent) | \(String(format2: Double(ticks.updates) / Double(max(ticks.sent, 1)))):1 |")

        try readRates(work.path)
    }

    /// Loop-thread CPU rate of `updates` set_info calls, one per loop turn, with 50 subscribers,
    /// and the notifications each got. Notifications go out on the loop turn after a change, so the
    /// loop runs: with no window, each update is a notification of its own (checked; starting to
    /// play adds one).
    private func updateCost(_ bundle: String, updates: Int, coalesceMilliseconds: Int) throws -> (rate: Double, sent: Int) {
        var configuration = RuntimeConfiguration.benchDefault
        configuration.nowPlaying.coalesceMilliseconds = coalesceMilliseconds
        let runtime = try Runtime(configuration: configuration, logger: Logger(level: .error))
        defer { runtime.shutdown() }
        let received = Counter()
        let subscribers = (0..<50).map { _ in RPCConnection { _ in received.count += 1 } }
        for subscriber in subscribers {
            subscriber.topics = ["nowPlaying.changed"]
            runtime.events.add(subscriber)
        }
        guard let plugin = runtime.plugins.load(bundle) else { throw BenchError("cannot load the bench plugin") }
        try plugin.activate()
        let lastTitle = "track \(updates - 1)"
        let watcher = try LoopTimer(loop: runtime.loop)
        defer { watcher.close() }
        // The loop runs on this thread: its CPU clock counts the plugin's calls, now playing and the 50 deliveries.
        let cpu0 = Measurement.cpu(of: CLOCK_THREAD_CPUTIME_ID)
        try runtime.focus.play(pluginID: plugin.id, item: "updates-\(updates)")
        watcher.start(after: 1, repeat: 1) { if runtime.player.center.info.title == lastTitle { runtime.loop.stop() } }
        runtime.loop.run()
        let cpu = Measurement.cpu(of: CLOCK_THREAD_CPUTIME_ID) - cpu0
        // The last window's notification, outside the measurement.
        watcher.start(after: UInt64(coalesceMilliseconds) + 20) { runtime.loop.stop() }
        runtime.loop.run()
        plugin.stopPlayback()
        let sent = received.count / subscribers.count
        if coalesceMilliseconds == 0 && sent < updates {
            throw BenchError("with no coalescing window each of \(updates) updates should be a nowPlaying.changed of its own; a subscriber got only \(sent)")
        }
        return (Double(updates) / cpu, sent)
    }

    /// Updates made and notifications one subscriber got while the plugin changes its title 100 times a second.
    private func tickRatio(_ bundle: String, seconds: Int) throws -> (updates: Int, sent: Int) {
        let runtime = try Runtime(configuration: RuntimeConfiguration.benchDefault, logger: Logger(level: .error))
        defer { runtime.shutdown() }
        let received = Counter()
        let subscriber = RPCConnection { _ in received.count += 1 }
        subscriber.topics = ["nowPlaying.changed"]
        runtime.events.add(subscriber)
        guard let plugin = runtime.plugins.load(bundle) else { throw BenchError("cannot load the bench plugin") }
        try plugin.activate()
        try runtime.focus.play(pluginID: plugin.id, item: "ticks")
        var titles = Set<String>()
        let sampler = try LoopTimer(loop: runtime.loop)
        sampler.start(after: 1, repeat: 1) { if let title = runtime.player.center.info.title { titles.insert(title) } }
        let stopper = try LoopTimer(loop: runtime.loop)
        stopper.start(after: UInt64(seconds) * 1_000) { runtime.loop.stop() }
        runtime.loop.run()
        plugin.stopPlayback()
        sampler.close()
        stopper.close()
        let last = runtime.player.center.info.title.flatMap { Int($0.dropFirst(6)) } ?? 0
        return (last + 1, received.count)
    }

    /// nowPlaying.get and session.get pipelined over deckd's socket, against snapserver's figure.
    private func readRates(_ folder: String) throws {
        let socketPath = folder + "/deck.sock"
        let deckd = try Subprocess(options.bin + "/deckd", ["--plugins", options.bin + "/plugins", "--socket", socketPath, "--state", "none",
                                                            "--play", "org.deck.tone:sweep", "--sink", "file:\(folder)/np.opus",
                                                            "--log-level", "warning", "--isolation", "inline"])
        defer { deckd.finish(signal: SIGTERM) }
        try RPCClient.waitForSocket(socketPath)
        let snapserver = 626.0
        print("\n| full-state reads over the socket, pipelined | requests | requests/s | vs snapserver's Server.GetStatus (626/s) |")
        print("|---|---|---|---|")
        print("| snapserver Server.GetStatus (reference, recorded) | — | 626 | 1.00× |")
        for method in ["nowPlaying.get", "session.get"] {
            let rate = try RPCBench.pipelined(socketPath, request: #"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#, count: 50_000)
            print("| deckd \(method) | 50000 | \(Int(rate)) | \(String(format2: rate / snapserver))× |")
        }
        print("\nGoal: at least 10× snapserver's full-state read.\n")
    }
}

/// A count bumped from the loop thread only.
private final class Counter: @unchecked Sendable {  // Touched only on the runtime's loop thread.
    var count = 0
}
