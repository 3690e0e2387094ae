import Glibc
import Synchronization

/// Mode 2's wakeups: a thread that waits, after each `process`, until the loop has work (its
/// backend descriptor is readable or its next timer is due) and then calls the integrator's
/// wakeup once; the next `process` arms it again.
final class WakeupThread: @unchecked Sendable {  // `state` is a Mutex; the descriptors are written once, before the thread starts.
    private struct State {
        var wakeup: Registered<EmbeddingAPI.WakeupFunction>?
        var timeout: Int32 = 0
    }

    private let state = Mutex(State())
    /// Pipes (read end, write end): one byte arms the wait, one ends the thread.
    private let armed = WakeupThread.pipe()
    private let stopped = WakeupThread.pipe()
    private var thread: pthread_t?

    /// Starts waking `callback` for `backend`; the first wakeup comes at once.
    func start(backend: Int32, callback: @escaping EmbeddingAPI.WakeupFunction, user: UnsafeMutableRawPointer?) -> Bool {
        state.withLock { $0.wakeup = Registered(function: callback, user: user) }
        guard thread == nil else { return true }
        let context = Unmanaged.passRetained(Context(owner: self, backend: backend)).toOpaque()
        var handle = pthread_t()
        guard pthread_create(&handle, nil, { context in
            let context = Unmanaged<Context>.fromOpaque(context!).takeRetainedValue()
            context.owner.run(backend: context.backend)
            return nil
        }, context) == 0 else {
            Unmanaged<Context>.fromOpaque(context).release()
            return false
        }
        thread = handle
        arm(timeout: 0)
        return true
    }

    func stopCalling() { state.withLock { $0.wakeup = nil } }

    /// After a `process`: wait at most `timeout` ms (-1: until the loop has I/O) before the next wakeup.
    func arm(timeout: Int32) {
        state.withLock { $0.timeout = timeout }
        var one: UInt8 = 1
        _ = write(armed.1, &one, 1)
    }

    /// Ends the thread and closes its descriptors.
    func finish() {
        var one: UInt8 = 1
        _ = write(stopped.1, &one, 1)
        if let thread { pthread_join(thread, nil) }
        thread = nil
        [armed.0, armed.1, stopped.0, stopped.1].forEach { close($0) }
    }

    private static func pipe() -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        _ = Glibc.pipe(&ends)
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        return (ends[0], ends[1])
    }

    private final class Context {
        let owner: WakeupThread
        let backend: Int32
        init(owner: WakeupThread, backend: Int32) {
            self.owner = owner
            self.backend = backend
        }
    }

    private func run(backend: Int32) {
        var signals = sigset_t()
        sigfillset(&signals)
        pthread_sigmask(SIG_BLOCK, &signals, nil)  // the integrator's signals stay with its threads
        var drained = [UInt8](repeating: 0, count: 64)
        while true {
            var waitArmed = [pollfd(fd: armed.0, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped.0, events: Int16(POLLIN), revents: 0)]
            guard poll(&waitArmed, 2, -1) >= 0 || errno == EINTR else { return }
            if waitArmed[1].revents != 0 { return }
            guard waitArmed[0].revents != 0 else { continue }
            _ = read(armed.0, &drained, drained.count)
            var waitWork = [pollfd(fd: backend, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped.0, events: Int16(POLLIN), revents: 0)]
            _ = poll(&waitWork, 2, state.withLock { $0.timeout })
            if waitWork[1].revents != 0 { return }
            if let wakeup = state.withLock({ $0.wakeup }) { wakeup.function(wakeup.user) }
        }
    }
}
