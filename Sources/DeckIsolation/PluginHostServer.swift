import CProcess
import DeckBase
import DeckPlugins
import DeckSession
import Glibc

/// The `deck-plugin-host` process: loads one plugin's code, serves the runtime's calls into it
/// over the socket on descriptor 3, and forwards the plugin's host calls back. Its loop thread
/// stands in for the runtime's loop thread; a second thread renders audio into the shared ring.
package final class PluginHostServer {
    /// The descriptors the runtime hands over: socket, ring memory, ring `space`, ring `filled`.
    package static let descriptors: (socket: Int32, memory: Int32, space: Int32, filled: Int32) = (3, 4, 5, 6)
    /// How often the host reaps children that ended and that its plugin did not wait for.
    static let sweepMilliseconds = 5_000

    private let arguments: HostArguments
    private let loop: EventLoop
    private let channel: WireChannel
    private let renderer: HostRenderer
    private var code: InProcessPluginCode?
    private var host: PluginHost?
    private var watcher: FileWatcher?
    private var heartbeat: LoopTimer?
    private var doorbell: AsyncDoorbell?

    /// Runs the host process; never returns.
    package static func main(_ commandLine: [String]) -> Never {
        if commandLine == ["--zygote"] { zygote() }
        let arguments: HostArguments
        do {
            arguments = try HostArguments(commandLine)
        } catch {
            complain("\(error) (it is started by the Deck runtime, not by hand)")
            exit(2)
        }
        ThreadName.set(String(arguments.id.suffix(15)))  // ps and top show whose host it is
        deck_close_from(descriptors.filled + 1)  // before the loop's own descriptors exist
        var problems: [String] = []
        if !arguments.cgroup.isEmpty && !HostCgroups.join(arguments.cgroup) {
            problems.append("joining \(arguments.cgroup): \(String(cString: strerror(errno)))")
        }
        // The plugin's orphans, `setsid` ones included, stay this host's descendants, ended with it.
        if !AdoptedOrphans.adopt() { problems.append("PR_SET_CHILD_SUBREAPER: \(String(cString: strerror(errno)))") }
        // While the process has one thread: a user namespace cannot be entered later.
        if arguments.sandbox && !arguments.permissions.contains(.network) && !PluginHostServer.inEmptyNetwork { problems += leaveNetwork() }
        do {
            // Built while still privileged, so its render thread can take real-time scheduling.
            let server = try PluginHostServer(arguments)
            problems += server.renderer.problems + server.lockMemory()
            if server.renderer.isRealtime { problems += HostRenderer.limitRealtime() }
            problems += restrict(memoryMegabytes: arguments.memoryMegabytes, processLimit: arguments.processLimit, uid: arguments.uid,
                                 sandbox: arguments.sandbox, services: arguments.permissions.contains(.services))
            // Capabilities are a thread's: the render thread, started while they were needed, gives them up too.
            let kept = server.renderer.onRenderThread { deck_drop_capabilities() == 0 ? 0 : errno }
            if kept != 0 { problems.append("the render thread's capabilities: \(String(cString: strerror(kept)))") }
            if arguments.sandbox {
                var sandbox = HostSandbox(bundle: arguments.bundle)
                sandbox.dataFolder = arguments.dataFolder.isEmpty ? nil : arguments.dataFolder
                sandbox.mediaFolders = arguments.mediaFolders
                sandbox.network = arguments.permissions.contains(.network)
                let outcome = sandbox.apply(otherThread: server.renderer.onRenderThread)
                switch outcome {
                case .applied: server.send(.log(.debug, "sandbox: \(outcome)"))
                case .unavailable: problems.append("\(outcome)")
                case .incomplete:  // the plugin's render would run outside the sandbox
                    complain("\(outcome)")
                    _exit(2)
                }
            }
            for problem in problems { server.send(.log(.debug, "least privilege not applied: \(problem)")) }
            server.run()
        } catch {
            complain("\(error)")
        }
        _exit(1)
    }

    /// A network namespace of its own (no interfaces but a loopback that is down): no sockets to
    /// other machines, to local servers, to the runtime's TCP port or to abstract Unix sockets.
    /// Root enters it directly; anyone else through a user namespace that maps only its own uid.
    static func leaveNetwork() -> [String] {
        let uid = getuid(), gid = getgid()
        let privileged = geteuid() == 0
        guard deck_unshare_network(privileged ? 0 : 1) == 0 else { return ["a network namespace: \(String(cString: strerror(errno)))"] }
        if !privileged {
            for (file, text) in [("setgroups", "deny"), ("uid_map", "\(uid) \(uid) 1"), ("gid_map", "\(gid) \(gid) 1")] {
                let descriptor = open("/proc/self/\(file)", O_WRONLY | O_CLOEXEC)
                let written = descriptor >= 0 && text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) } > 0
                if descriptor >= 0 { close(descriptor) }
                if !written { return ["writing /proc/self/\(file): \(String(cString: strerror(errno)))"] }
            }
        }
        return []
    }

    /// Keeps the ring in memory under pressure (the render thread locks its own stack): a page
    /// fault on the render path is a late frame.
    private func lockMemory() -> [String] {
        renderer.ring.lock().map { [$0] } ?? []
    }

    /// Least privilege where the kernel allows: a uid of its own when given one (no supplementary
    /// groups), dies with the runtime, gains no privileges on exec, holds no capability (on this
    /// thread; a host that keeps uid 0 holds none either), makes no more real-time threads
    /// (RLIMIT_RTPRIO 0, once the render thread has its priority), has a memory limit, on a uid
    /// of its own a process limit (RLIMIT_NPROC counts the uid's every process and thread, so on
    /// the runtime's it would count deckd's), and the system call filter, whose rules for the
    /// runtime's uid, and Unix sockets unless the plugin holds `services`, come with the `sandbox`
    /// (descriptors beyond its own were closed before). Returns what could not be applied; a uid
    /// that cannot be taken ends the host, since the runtime counts on it.
    static func restrict(memoryMegabytes: Int, processLimit: Int, uid: UInt32, sandbox: Bool, services: Bool) -> [String] {
        var problems: [String] = []
        if uid != 0 {
            guard setgroups(0, nil) == 0, setgid(uid) == 0, setuid(uid) == 0 else {
                complain("cannot run as uid \(uid): \(String(cString: strerror(errno)))")
                _exit(2)
            }
        }
        // After the uid, which clears it.
        if deck_parent_death_signal(SIGKILL) != 0 { problems.append("PR_SET_PDEATHSIG: \(String(cString: strerror(errno)))") }
        if getppid() == 1 { _exit(0) }  // the runtime already went away
        if deck_no_new_privs() != 0 { problems.append("PR_SET_NO_NEW_PRIVS: \(String(cString: strerror(errno)))") }
        if memoryMegabytes > 0 && !SanitizerBuild.active {  // a sanitizer's shadow memory reserves terabytes
            var limit = rlimit(rlim_cur: rlim_t(memoryMegabytes) << 20, rlim_max: rlim_t(memoryMegabytes) << 20)
            if setrlimit(Int32(RLIMIT_AS.rawValue), &limit) != 0 { problems.append("RLIMIT_AS: \(String(cString: strerror(errno)))") }
        }
        if uid != 0 && processLimit > 0 {
            var limit = rlimit(rlim_cur: rlim_t(processLimit), rlim_max: rlim_t(processLimit))
            if setrlimit(Int32(__RLIMIT_NPROC.rawValue), &limit) != 0 { problems.append("RLIMIT_NPROC: \(String(cString: strerror(errno)))") }
        }
        if deck_drop_capabilities() != 0 { problems.append("dropping capabilities: \(String(cString: strerror(errno)))") }
        // The render thread took its real-time priority already; the plugin's own threads may not (they would outrank deckd's audio).
        var noRealtime = rlimit(rlim_cur: 0, rlim_max: 0)
        if setrlimit(Int32(__RLIMIT_RTPRIO.rawValue), &noRealtime) != 0 { problems.append("RLIMIT_RTPRIO: \(String(cString: strerror(errno)))") }
        let onRuntimeUID = uid == 0 && sandbox
        if let problem = HostSyscallFilter.apply(refusingFileMetadata: onRuntimeUID, refusingUnixSockets: sandbox && !services) {
            problems.append(problem)
        }
        return problems
    }

    private init(_ arguments: HostArguments) throws {
        self.arguments = arguments
        loop = try EventLoop()
        channel = WireChannel(descriptor: PluginHostServer.descriptors.socket, maxMessageBytes: arguments.maxMessageBytes)
        let ring = try AudioRing(memory: PluginHostServer.descriptors.memory, filled: PluginHostServer.descriptors.filled,
                                 space: PluginHostServer.descriptors.space, frames: arguments.frames, slots: arguments.slots)
        renderer = HostRenderer(ring: ring, realtimePriority: arguments.realtimePriority)
    }

    private func run() -> Never {
        let channel = channel
        let logger = Logger(level: arguments.logLevel) { record in
            try? channel.send(WireWriter.event(.log(record.level, record.message)))
        }
        do {
            doorbell = try AsyncDoorbell(loop: loop) { [unowned self] in
                guard let host, !host.callbacks.drain().isEmpty else { return }
                send(.callback)
            }
        } catch {
            _exit(1)
        }
        let plugin = PluginHost(pluginID: arguments.id, instance: 1, entitlements: arguments.entitlements,
                                permissions: arguments.permissions, dataFolder: arguments.dataFolder.isEmpty ? nil : arguments.dataFolder, settings: arguments.settings, freewheeling: arguments.freewheeling, logger: logger,
                              loopThread: loop.thread, callbacks: CallbackRequests(ringer: doorbell!.ringer), actions: actions())
        host = plugin
        do throws(PluginLoadError.Reason) {
            let code = try InProcessCodeLoader.load(library: arguments.library, bundle: arguments.bundle, id: arguments.id,
                                                    host: plugin, logger: logger)
            self.code = code
            try? channel.send(WireWriter.hello(.loaded(isSwift: code.isSwift)))
        } catch {
            try? channel.send(WireWriter.hello(.refused(error)))
            _exit(0)
        }
        do {
            watcher = try FileWatcher(loop: loop, fileDescriptor: channel.descriptor)
            heartbeat = try LoopTimer(loop: loop)
        } catch {
            _exit(1)
        }
        watcher?.start(writable: false) { [unowned self] in
            do throws(WireError) {
                try channel.readAvailable()
                while var message = try channel.nextMessage() { try serve(&message) }
            } catch {
                _exit(error == .closed ? 0 : 3)
            }
        }
        let beatsPerSweep = max(1, PluginHostServer.sweepMilliseconds / max(1, arguments.heartbeatMilliseconds))
        var beats = 0, lingering = Set<pid_t>()
        heartbeat?.start(after: 0, repeat: UInt64(arguments.heartbeatMilliseconds)) { [unowned self] in
            send(.heartbeat)
            beats += 1
            if beats % beatsPerSweep == 0 {
                let swept = AdoptedOrphans.reapLingering(foundBefore: lingering)
                lingering = swept.ended
                if swept.reaped > 0 { send(.log(.debug, "reaped \(swept.reaped) ended process(es) its plugin did not wait for")) }
            }
            if renderer.realtimeWasTakenBack() {
                send(.log(.warning, "its render ran \(HostRenderer.realtimeBudgetMicroseconds / 1_000) ms at real-time priority without waiting; "
                          + "it renders at normal priority from now on"))
            }
        }
        loop.run()
        _exit(0)
    }

    private static func complain(_ text: String) {
        let line = "deck-plugin-host: \(text)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    private func send(_ event: HostEvent) {
        do { try channel.send(WireWriter.event(event)) } catch { _exit(0) }
    }

    /// Answers one call from the runtime; anything else from it is a protocol error.
    private func serve(_ message: inout WireReader) throws(WireError) {
        guard message.kind == .call else { throw .invalid("the host expected a call, got \(message.kind)") }
        let call: PluginCall = try message.read()
        try message.finish()
        guard let code, let host else { return }
        var reply = WireWriter(.reply)
        switch call {
        case .initialize:
            let status = code.initialize()
            reply.write(status)
            var offers = PluginOffers()
            offers.audio = code.offersAudio
            offers.nowPlaying = code.offersNowPlaying
            offers.ui = code.offersUI
            offers.content = code.offersContent
            reply.write(offers)
            if status == .ok, let source = code.renderSource { renderer.start(source) }
            if status == .ok { host.phase.store(PluginHost.Phase.running.rawValue, ordering: .releasing) }
        case .activate: reply.write(code.activate())
        case .deactivate: code.deactivate()
        case .destroy:
            renderer.pause()
            host.phase.store(PluginHost.Phase.destroyed.rawValue, ordering: .releasing)
            code.destroy()
            // The processes the plugin left end with it, orphans included.
            let ended = AdoptedOrphans.endChildren()
            if ended > 0 { send(.log(.warning, "destroy left \(ended) process(es) running (a setsid one or an orphan counts); ended them")) }
            try channel.send(reply)
            _exit(0)  // threads the plugin left running end with the process
        case .onCallback:
            host.callbackPending.store(false, ordering: .releasing)
            code.onCallback()
        case .start(let item): reply.write(code.start(item: item))
        case .stop: code.stop()
        case .focusChanged(let change): code.focusChanged(change)
        case .sessionChanged(let active): code.sessionChanged(active: active)
        case .command(let command, let token): reply.write(code.command(command, token: token))
        case .displayChanged(let attached, let profile): code.displayChanged(attached: attached, profile: profile)
        case .select(let id, let key, let token): code.select(templateID: id, key: key, token: token)
        case .limitsChanged(let limits): code.limitsChanged(limits)
        case .childCount(let path): reply.write(code.childCount(path: path))
        case .contentItem(let path): reply.write(code.contentItem(path: path))
        case .beginLoading(let path, let token): code.beginLoading(path: path, token: token)
        case .play(let path, let token): code.play(path: path, token: token)
        }
        try channel.send(reply)
    }

    /// Asks the runtime to carry out a host call and waits for its answer, serving its calls
    /// meanwhile (it may call back into the plugin before it answers). A call too large to send
    /// is answered here with `refusal`.
    private func remote<T: WireValue>(_ call: HostCall, _ answer: T.Type, refusal: (PluginCallError) -> T) -> T {
        var request = WireWriter(.hostCall)
        request.write(call)
        guard request.bytes.count - 4 <= arguments.maxMessageBytes else {
            return refusal(PluginCallError(status: .limit, message: "the call's \(request.bytes.count) bytes are over the "
                                           + "\(arguments.maxMessageBytes) a plugin host may send (isolation.maxMessageBytes)"))
        }
        do throws(WireError) {
            var reply = try channel.exchange(request, answer: .hostReply, timeoutMs: -1) { message throws(WireError) in try serve(&message) }
            let value: T = try reply.read()
            try reply.finish()
            return value
        } catch {
            _exit(error == .closed ? 0 : 3)
        }
    }

    /// The plugin's loop-thread host calls, answered by the runtime.
    private func actions() -> HostActions {
        HostActions(
            audioThread: renderer.thread,
            openStream: { [unowned self] _ in
                renderer.pause(discarding: true)
                let error = remote(.openStream, PluginCallError?.self) { $0 }
                if error == nil { renderer.resume() }
                return error
            },
            closeStream: { [unowned self] _ in
                // In freewheel the runtime mixes what was rendered before it ends the stream: render stops
                // first, so that is all there is (paced, it renders on until then, never missing a frame).
                let freewheeling = host?.isFreewheeling ?? false
                if freewheeling { renderer.pause() }
                let error = remote(.closeStream, PluginCallError?.self) { $0 }
                if error == nil { renderer.pause() } else if freewheeling { renderer.resume() }
                return error
            },
            requestFocus: { [unowned self] _, context, type, delayed, pauses in
                remote(.requestFocus(context, type, acceptsDelayed: delayed, pausesOnDuck: pauses), Result<FocusResult, PluginCallError>.self) {
                    .failure($0)
                }
            },
            abandonFocus: { [unowned self] _ in remote(.abandonFocus, PluginCallError?.self) { $0 } },
            nowPlaying: { [unowned self] _, call in remote(.nowPlaying(call), PluginCallError?.self) { $0 } },
            ui: { [unowned self] _, call in remote(.ui(call), Result<UIAnswer, PluginCallError>.self) { .failure($0) } })
    }
}

extension WireWriter {
    static func event(_ event: HostEvent) -> WireWriter {
        var writer = WireWriter(.event)
        writer.write(event)
        return writer
    }

    static func hello(_ hello: HostHello) -> WireWriter {
        var writer = WireWriter(.hello)
        writer.write(hello)
        return writer
    }
}
