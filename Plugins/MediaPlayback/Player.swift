import DeckSDK
import Glibc
import Synchronization

/// One thing to play: a file or a stream, with what is known of its loudness.
public struct PlayerItem: Sendable, Equatable {
    public var url: String
    /// A live stream: no end, no seek; a dropped connection is reopened with backoff.
    public var live: Bool
    /// Its integrated loudness (LUFS) when known; nil: adapt while it plays.
    public var loudness: Double?
    /// An earlier estimate for an adapting source (the station last time).
    public var seed: Double?

    public init(url: String, live: Bool = false, loudness: Double? = nil, seed: Double? = nil) {
        self.url = url
        self.live = live
        self.loudness = loudness
        self.seed = seed
    }
}

/// What the decode thread tells the app, delivered on the loop thread by `Player.events()`.
public enum PlayerEvent: Sendable, Equatable {
    /// Item `index` opened (its tags, length and cover: its own, else its folder's, made to fit by
    /// `CoverImage`), or reopened after a drop.
    case opened(index: Int, tags: [String: String], duration: Double?, cover: [UInt8]?)
    case tags(index: Int, [String: String])
    /// A live stream dropped: it is reopened in `seconds` (attempt `attempt` of `of`).
    case reconnecting(index: Int, attempt: Int, of: Int, seconds: Double, reason: String)
    /// Item `index` cannot be played: skipped (a file), or given up (a stream).
    case failed(index: Int, reason: String)
    /// The estimate of an adapting item's loudness (LUFS), to keep for next time.
    case loudness(index: Int, Double)
}

/// Plays a list of items through one open stream: a decode thread opens, decodes, normalises and
/// queues them back to back (gapless), the render thread plays what is queued, fading in and out
/// around any gap so nothing clicks. The app calls everything but `render` on the loop thread.
public final class Player: @unchecked Sendable {  // Shared with the decode and render threads through `request`, `ring` and atomics only.
    public static let reconnectDelays = [0.5, 1, 2, 4, 8, 8]
    /// Frames queued before a live stream starts sounding (and again after it ran dry).
    static let prebufferFrames = MediaSource.sampleRate * 3 / 4
    static let fadeFrames = 240

    private let host: DeckHost
    private let target: Double
    private var decoder: WorkerThread?
    /// While it runs, FFmpeg's errors go to its app's log.
    private var logToken: Int?
    private let ring = SampleRing(capacity: MediaSource.sampleRate * 4)
    private let wake = WakeSignal()
    /// The newest request: a list to play from an index and position; bumped to restart.
    private let request = Mutex<Request?>(nil)
    private let pendingEvents = Mutex<[PlayerEvent]>([])
    /// Where each item's frames begin in the ring's count, for positions and the current item.
    private let marks = Mutex<[Mark]>([])
    /// The read position at which the render thread asks the loop to look (an item begins).
    private let nextMark = Atomic<Int>(Int.max)
    /// The generation the decode thread finished writing (no more frames will come).
    private let doneGeneration = Atomic<Int>(-1)
    private let ringGeneration = Atomic<Int>(0)
    /// The serial of the request whose frames the ring carries (0: none yet).
    private let soundingSerial = Atomic<Int>(0)
    /// Render side: sounding, or waiting for frames (silence); the fade position.
    private let waitingForFrames = Atomic<Bool>(true)
    private var readerWaiting = true
    private var fade = 0
    private var lastFrame: (Float, Float) = (0, 0)
    /// Whether the render thread waits for a live stream's prebuffer (set by the decode thread).
    private let liveWaiting = Atomic<Bool>(false)
    /// The loudness estimate (LUFS) of the item decoding now (its URL), as the decode thread last read it.
    let estimate = Mutex<(url: String, loudness: Double)?>(nil)
    /// Set by the decode thread while it sleeps on a full ring; the render thread wakes it once
    /// `refillFrames` of room are free, so a file is decoded in bursts, not a chunk at a time.
    private let wantsRoom = Atomic<Bool>(false)
    static let refillFrames = MediaSource.sampleRate
    /// What the decode thread does at an item's end: `RepeatMode.code` (off: the next item).
    private let repetition = Atomic<Int32>(RepeatMode.off.code)
    /// The host renders as fast as it can (a render to a file): render waits for the decode
    /// thread, up to `freewheelWaitMilliseconds` a call, rather than play a gap; a live stream,
    /// which arrives no faster than real time, is rendered in real time (`paceLive`).
    private let freewheeling: Bool
    /// Freewheel, live: when the next frame is due on the monotonic clock, in nanoseconds (render thread).
    private var liveDue = 0
    static let freewheelWaitMilliseconds = 40
    /// Set while the render thread waits for frames in freewheel; the decode thread then signals
    /// `decoded` after each write.
    private let renderWaits = Atomic<Bool>(false)
    private let decoded = WakeSignal()
    /// The app holds its stream open for a request still to come (`awaitRequest`).
    private let requestAwaited = Atomic<Bool>(false)

    struct Request: Sendable {
        var items: [PlayerItem]
        var index: Int
        var position: Double
        var serial: Int
        let cancellation = Cancellation()
    }

    struct Mark: Sendable {
        var frame: Int
        /// -1: past the last item.
        var index: Int
        var offset: Double
        var generation: Int
    }

    public init(host: DeckHost, target: Double = LoudnessNormalizer.defaultTarget) {
        self.host = host
        self.target = target
        freewheeling = host.isFreewheeling
    }

    /// Starts the decode thread (when the app activates).
    public func start() {
        guard decoder == nil else { return }
        request.withLock { $0 = nil }
        let token = logToken ?? FFmpegLog.start(host)
        logToken = token
        decoder = WorkerThread.start { [self] in
            FFmpegLog.attribute(to: token)
            decodeLoop()
        }
        if decoder == nil { host.log(.error, "no thread to decode on: nothing will play") }
    }

    /// Ends the decode thread and waits for it (when the app deactivates, and before it is
    /// destroyed: the thread uses the host).
    public func shutDown() {
        request.withLock { current in
            current?.cancellation.cancel()
            current = Request(items: [], index: -1, position: 0, serial: -1)
        }
        wake.signal()
        decoder?.join()
        decoder = nil
        logToken.map(FFmpegLog.stop)
        logToken = nil
    }

    /// Plays `items` from `index`, `position` seconds in; what was queued is dropped.
    public func play(_ items: [PlayerItem], from index: Int, at position: Double = 0) {
        request.withLock { current in
            current?.cancellation.cancel()
            current = Request(items: items, index: max(0, min(index, items.count)), position: max(0, position.isFinite ? position : 0),
                              serial: (current?.serial ?? 0) + 1)
        }
        waitingForFrames.store(true, ordering: .relaxed)
        requestAwaited.store(false, ordering: .relaxed)
        wake.signal()
    }

    /// The app holds its stream open for a request it cannot make yet (what it is to play is still
    /// being looked for): in freewheel, render waits for it too rather than fill a file with silence.
    public func awaitRequest() { requestAwaited.store(true, ordering: .relaxed) }

    /// Repeats the item or the list gaplessly: the decode thread follows it at the next item it
    /// opens (what is already queued, up to the ring's 4 s, plays as it is).
    public var repeatMode: RepeatMode {
        get { RepeatMode(code: repetition.load(ordering: .relaxed)) ?? .off }
        set { repetition.store(newValue.code, ordering: .relaxed) }
    }

    /// Stops decoding; the render thread plays silence.
    public func stop() { play([], from: 0) }

    /// The events since the last call (loop thread).
    public func events() -> [PlayerEvent] {
        pendingEvents.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    /// The item sounding now (nil: none, or past the end), seconds into it, and the frame its
    /// pass began at (a repeated item begins again at a new one).
    public var current: (index: Int, elapsed: Double, pass: Int)? {
        // A request the decode thread has not begun is where play stands: the marks are the old one's.
        if let pending = pendingRequest { return Player.start(of: pending) }
        let read = ring.read.load(ordering: .acquiring)
        let generation = ringGeneration.load(ordering: .acquiring)
        let reached = marks.withLock { marks in marks.last { $0.generation == generation && $0.frame <= read } }
        // Begun but not sounding yet (its file opening, its seek): it still stands where it starts.
        guard let mark = reached else { return request.withLock { $0 }.flatMap(Player.start) }
        guard mark.index >= 0 else { return nil }
        return (mark.index, mark.offset + Double(read - mark.frame) / Double(MediaSource.sampleRate), mark.frame)
    }

    /// Where a request starts: its item and position, in no pass yet.
    private static func start(of request: Request) -> (index: Int, elapsed: Double, pass: Int)? {
        request.items.indices.contains(request.index) ? (request.index, request.position, -1) : nil
    }

    /// True while the render thread waits for frames (opening, buffering, reconnecting).
    /// What `url` measures (LUFS), adapting or seeded, while it is the item decoding or the last
    /// one decoded: kept, a station tuned again after a pause or a call plays at the level it left
    /// at. Nil before its first reading.
    public func loudnessEstimate(of url: String) -> Double? {
        estimate.withLock { $0?.url == url ? $0?.loudness : nil }
    }

    public var isBuffering: Bool { waitingForFrames.load(ordering: .relaxed) }

    /// True once everything asked for has played.
    public var hasFinished: Bool {
        if pendingRequest != nil { return false }
        let read = ring.read.load(ordering: .acquiring)
        let generation = ringGeneration.load(ordering: .acquiring)
        return marks.withLock { marks in marks.contains { $0.generation == generation && $0.index < 0 && $0.frame <= read } }
    }

    /// Fills `frames` frames (render thread): what is queued, faded around gaps, else silence.
    public func render(frames: Int, into samples: UnsafeMutablePointer<Float>) -> Int {
        if freewheeling {
            catchUp()  // before waiting: the decode thread may be asleep for the room the old frames hold
            if liveWaiting.load(ordering: .relaxed) { paceLive(frames: frames) } else { awaitDecoding(frames: frames) }
        }
        catchUp()
        let generation = ringGeneration.load(ordering: .acquiring)
        let finished = doneGeneration.load(ordering: .acquiring) == generation
        let needed = liveWaiting.load(ordering: .relaxed) ? Player.prebufferFrames : frames
        if readerWaiting, ring.available >= needed || (finished && ring.available > 0) {
            readerWaiting = false
            fade = 0
            waitingForFrames.store(false, ordering: .relaxed)
            try? host.requestCallback()
        }
        var count = 0
        if !readerWaiting {
            count = ring.read(into: samples, frames: frames)
            offerRoom()
            for frame in 0..<count where fade < Player.fadeFrames {
                let level = Float(fade) / Float(Player.fadeFrames)
                samples[frame * 2] *= level
                samples[frame * 2 + 1] *= level
                fade += 1
            }
            if count > 0 { lastFrame = (samples[count * 2 - 2], samples[count * 2 - 1]) }
            if count < frames {
                readerWaiting = true
                waitingForFrames.store(true, ordering: .relaxed)
                try? host.requestCallback()
            }
        }
        // What is missing fades from the last frame to silence, so a gap never clicks.
        for frame in count..<frames {
            let level = max(0, 1 - Float(frame - count + 1) / Float(Player.fadeFrames))
            samples[frame * 2] = lastFrame.0 * level
            samples[frame * 2 + 1] = lastFrame.1 * level
        }
        if count < frames { lastFrame = (0, 0) }
        let armed = nextMark.load(ordering: .acquiring)
        // Only the mark seen is disarmed: one the decode thread or the loop set meanwhile stays.
        if ring.read.load(ordering: .relaxed) >= armed, nextMark.compareExchange(expected: armed, desired: Int.max, ordering: .relaxed).exchanged {
            try? host.requestCallback()
        }
        return frames
    }

    /// Moves the reader to the newest generation (a seek, a new list). What the old one queued is
    /// dropped, so its room goes to the decode thread, which may be asleep for it with less than a
    /// period of the new one queued (render thread).
    private func catchUp() {
        guard ring.catchUp() else { return }
        readerWaiting = true
        waitingForFrames.store(true, ordering: .relaxed)
        offerRoom()
    }

    /// Wakes the decode thread sleeping on a full ring once `refillFrames` are free (render thread).
    private func offerRoom() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)  // the read moves on before wantsRoom is looked at (see waitForRoom)
        if wantsRoom.load(ordering: .relaxed), ring.capacity - ring.available >= Player.refillFrames,
           wantsRoom.exchange(false, ordering: .relaxed) {
            wake.signal()
        }
    }

    /// Freewheel: waits until `frames` frames are queued, the decode thread has finished what was
    /// asked, or nothing is asked, for at most `freewheelWaitMilliseconds`.
    private func awaitDecoding(frames: Int) {
        let deadline = Monotonic.milliseconds + Player.freewheelWaitMilliseconds
        while true {
            renderWaits.store(true, ordering: .relaxed)
            atomicMemoryFence(ordering: .sequentiallyConsistent)  // set before the ring is looked at (see wakeRenderer)
            if ring.availableInNewest >= frames || !isDecoding { break }
            let left = deadline - Monotonic.milliseconds
            guard left > 0 else { break }
            decoded.wait(milliseconds: min(left, 5))  // a few ms at most: a failed open or a stop signals nothing
        }
        renderWaits.store(false, ordering: .relaxed)
    }

    /// Freewheel, live: sleeps until this frame is due in real time, so the stream's cushion absorbs
    /// the network's bursts as it does paced (rendering faster would only drain it into gaps).
    private func paceLive(frames: Int) {
        let now = Monotonic.nanoseconds
        if liveDue < now - 100_000_000 { liveDue = now }  // the first frame, or render was not called for a while
        if liveDue > now {
            var due = timespec(tv_sec: liveDue / 1_000_000_000, tv_nsec: liveDue % 1_000_000_000)
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, nil) == EINTR {}
        }
        liveDue += frames * 1_000_000_000 / MediaSource.sampleRate
    }

    /// Whether the decode thread has frames still to queue for the newest request, or one is awaited.
    private var isDecoding: Bool {
        if requestAwaited.load(ordering: .relaxed) { return true }
        guard let newest = request.withLock({ $0 }), newest.serial > 0, newest.items.indices.contains(newest.index) else { return false }
        return soundingSerial.load(ordering: .acquiring) != newest.serial
            || doneGeneration.load(ordering: .acquiring) != ringGeneration.load(ordering: .acquiring)
    }

    /// Decode thread: wakes a render waiting in freewheel for what was just queued or finished.
    func wakeRenderer() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)  // the write is visible before renderWaits is looked at
        if renderWaits.load(ordering: .relaxed), renderWaits.exchange(false, ordering: .relaxed) { decoded.signal() }
    }

    /// The loop thread looked at the marks: the render thread asks again at the next one.
    public func armNextMark() {
        let read = ring.read.load(ordering: .acquiring)
        // Under the lock `mark` sets it under: a mark added after this look is never overwritten by its result.
        marks.withLock { marks in
            let generation = ringGeneration.load(ordering: .acquiring)
            nextMark.store(marks.first { $0.generation == generation && $0.frame > read }?.frame ?? Int.max, ordering: .releasing)
        }
    }

    /// The read position the render thread next asks the loop to look at (Int.max: none).
    var armedMark: Int { nextMark.load(ordering: .acquiring) }

    func post(_ event: PlayerEvent) {
        pendingEvents.withLock { $0.append(event) }
        try? host.requestCallback()
    }

    func mark(_ mark: Mark) {
        let read = ring.read.load(ordering: .acquiring)
        marks.withLock { marks in
            marks.removeAll { $0.generation != mark.generation }
            marks.append(mark)
            if mark.frame > read { nextMark.store(min(nextMark.load(ordering: .relaxed), mark.frame), ordering: .releasing) }
        }
        try? host.requestCallback()
    }

    /// The newest request, while the decode thread has not begun it (after a seek, under load,
    /// for a while): what the ring still plays belongs to the request before.
    private var pendingRequest: Request? {
        let sounding = soundingSerial.load(ordering: .acquiring)
        return request.withLock { current in current.flatMap { $0.serial > 0 && $0.serial != sounding ? $0 : nil } }
    }

    /// The request the decode thread serves, unless a newer one replaced it.
    func isCurrent(_ serial: Int) -> Bool { request.withLock { $0?.serial == serial } }

    func nextRequest(after serial: Int) -> Request? {
        request.withLock { current in current.flatMap { $0.serial != serial ? $0 : nil } }
    }

    var ringForDecoding: SampleRing { ring }

    func beginGeneration(serving serial: Int, live: Bool) -> Int {
        liveWaiting.store(live, ordering: .relaxed)
        let generation = ring.beginGeneration()
        ringGeneration.store(generation, ordering: .releasing)
        soundingSerial.store(serial, ordering: .releasing)
        return generation
    }

    func finish(_ generation: Int) {
        doneGeneration.store(generation, ordering: .releasing)
        wakeRenderer()
    }

    /// Decode thread: sleeps until the render thread freed `refillFrames` of room, or a request came.
    func waitForRoom() {
        wantsRoom.store(true, ordering: .relaxed)
        atomicMemoryFence(ordering: .sequentiallyConsistent)  // wantsRoom is set before the room is looked at (see render)
        guard ring.space < Player.refillFrames else { return wantsRoom.store(false, ordering: .relaxed) }
        wake.wait()
    }

    /// Waits for a new request (each is signalled), or at most `milliseconds` when given.
    func waitForWork(milliseconds: Int? = nil) {
        if let milliseconds { wake.wait(milliseconds: milliseconds) } else { wake.wait() }
    }

    var loudnessTarget: Double { target }
}
