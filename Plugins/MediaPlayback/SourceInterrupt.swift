import CFFmpeg

/// FFmpeg's interrupt callback for one source: its cancellation and, while a file opens, a
/// deadline, so a damaged file FFmpeg would read to its end looking for audio (5 GB of zeros
/// took 18 s) is given up on instead of holding a scan or a play. Used on the source's thread.
final class SourceInterrupt {
    let cancellation: Cancellation
    /// The monotonic time (ns) after which opening gives up; nil once the source is open.
    var deadline: Int?
    /// Set when the deadline ended an open.
    private(set) var expired = false

    init(cancellation: Cancellation, deadline: Int?) {
        self.cancellation = cancellation
        self.deadline = deadline
    }

    /// Valid while this object lives (the source keeps it).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let opaque else { return 0 }
            let state = Unmanaged<SourceInterrupt>.fromOpaque(opaque).takeUnretainedValue()
            if state.cancellation.isCancelled { return 1 }
            guard let deadline = state.deadline, Monotonic.nanoseconds > deadline else { return 0 }
            state.expired = true
            return 1
        }, opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
