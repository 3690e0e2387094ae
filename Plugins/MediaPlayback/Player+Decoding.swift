import Glibc

extension Player {
    /// The decode thread: serves each request until a newer one replaces it.
    func decodeLoop() {
        let normalizer = LoudnessNormalizer(target: loudnessTarget)
        var covers = CoverImage.Cache()  // kept across requests: a skip is a new one
        var served = 0  // a request's serial is never 0
        while true {
            guard let request = nextRequest(after: served) else {
                waitForWork()
                continue
            }
            served = request.serial
            if request.serial < 0 { return }
            serve(request, normalizer: normalizer, covers: &covers)
        }
    }

    /// Opens, decodes and queues the request's items from its index, back to back.
    private func serve(_ request: Request, normalizer: LoudnessNormalizer, covers: inout CoverImage.Cache) {
        let ring = ringForDecoding
        let generation = beginGeneration(serving: request.serial, live: request.items.indices.contains(request.index) && request.items[request.index].live)
        var chunk = [Float](repeating: 0, count: Player.chunkFrames * 2)
        var held = HeldChunk()
        var index = request.index
        var position = request.position
        var continuing = false
        var playedInPass = false
        while index < request.items.count, isCurrent(request.serial) {
            let item = request.items[index]
            var failures = 0
            var announced = false
            reading: while isCurrent(request.serial) {
                let source: MediaSource
                do {
                    let url = Playlist.isPlaylist(item.url) ? try Playlist.resolve(item.url, cancellation: request.cancellation) : item.url
                    source = try MediaSource(url: url, live: item.live, cancellation: request.cancellation)
                    if position > 0, !item.live { try source.seek(to: position) }
                } catch {
                    if error == .cancelled || !isCurrent(request.serial) { return }
                    // A stream that played comes back from anything (Icecast answers 404 while its source is away);
                    // one that never played is not retried when the answer is final.
                    guard item.live, announced || !error.isPermanent, failures < Player.reconnectDelays.count else {
                        post(.failed(index: index, reason: error.description))
                        if item.live { finish(generation); return }
                        break reading
                    }
                    if !backOff(request, index: index, failures: &failures, reason: error.description) { return }
                    continue
                }
                // A file without a cover of its own, or with one that cannot be shown, shows its folder's (a CD rip's cover.jpg).
                let cover = source.cover.flatMap { covers.fitted($0) }
                    ?? (item.url.contains("://") ? nil : CoverImage.beside(item.url).flatMap { covers.fitted($0) })
                post(.opened(index: index, tags: source.tags, duration: source.duration, cover: cover))
                if !announced {
                    mark(Mark(frame: ring.written.load(ordering: .relaxed), index: index, offset: position, generation: generation))
                    normalizer.begin(loudness: item.loudness, seed: item.seed, continuing: continuing)
                    estimate.withLock { $0 = normalizer.currentEstimate.map { (item.url, $0) } }
                    announced = true
                }
                failures = 0
                var sinceEstimate = 0
                do {
                    while isCurrent(request.serial) {
                        let frames = try chunk.withUnsafeMutableBufferPointer { buffer throws(MediaError) in
                            try source.read(into: buffer.baseAddress!, frames: Player.chunkFrames)
                        }
                        if let tags = source.tagUpdates() { post(.tags(index: index, tags)) }
                        if frames == 0 { break }
                        chunk.withUnsafeMutableBufferPointer { normalizer.process($0.baseAddress!, frames: frames) }
                        estimate.withLock { $0 = normalizer.currentEstimate.map { (item.url, $0) } }
                        if let ready = held.swap(&chunk, frames: frames), !queue(chunk, frames: ready, into: ring, request: request) { return }
                        sinceEstimate += frames
                        if item.loudness == nil, sinceEstimate >= MediaSource.sampleRate * 10, let estimate = normalizer.currentEstimate {
                            sinceEstimate = 0
                            post(.loudness(index: index, estimate))
                        }
                    }
                    guard item.live else { break reading }
                    if !endInFade(&held, ring: ring, request: request) { return }
                    if !backOff(request, index: index, failures: &failures, reason: "the stream ended") { return }
                } catch {
                    if error == .cancelled || !isCurrent(request.serial) { return }
                    guard item.live else {
                        post(.failed(index: index, reason: error.description))
                        break reading
                    }
                    if !endInFade(&held, ring: ring, request: request) { return }
                    if !backOff(request, index: index, failures: &failures, reason: error.description) { return }
                }
            }
            playedInPass = playedInPass || announced
            // Repeats follow the mode at each item's end; an item that did not play is never repeated alone,
            // nor a list none of whose items played.
            switch repeatMode {
            case .one where announced && !item.live: break
            case .all where !item.live && index + 1 == request.items.count && playedInPass: index = 0; playedInPass = false
            default: index += 1
            }
            position = 0
            continuing = true
        }
        guard isCurrent(request.serial) else { return }
        if let frames = held.release(), !queue(held.samples, frames: frames, into: ring, request: request) { return }
        mark(Mark(frame: ring.written.load(ordering: .relaxed), index: -1, offset: 0, generation: generation))
        finish(generation)
    }

    static let chunkFrames = 1024

    /// A stream dropped: what is held back fades out and goes, and what comes next fades in.
    private func endInFade(_ held: inout HeldChunk, ring: SampleRing, request: Request) -> Bool {
        guard let frames = held.release(fadingOut: true) else { return true }
        return queue(held.samples, frames: frames, into: ring, request: request)
    }

    /// Waits for room and queues `frames` frames; false when a newer request came meanwhile.
    private func queue(_ chunk: [Float], frames: Int, into ring: SampleRing, request: Request) -> Bool {
        var done = 0
        while done < frames {
            guard isCurrent(request.serial) else { return false }
            done += chunk.withUnsafeBufferPointer { ring.write($0.baseAddress! + done * 2, frames: frames - done) }
            wakeRenderer()
            if done < frames { waitForRoom() }
        }
        return true
    }

    /// Waits before reopening a dropped stream (telling the app); false when given up or replaced.
    private func backOff(_ request: Request, index: Int, failures: inout Int, reason: String) -> Bool {
        guard failures < Player.reconnectDelays.count else {
            post(.failed(index: index, reason: "gave up after \(failures) attempts: \(reason)"))
            return false
        }
        let delay = Player.reconnectDelays[failures]
        failures += 1
        post(.reconnecting(index: index, attempt: failures, of: Player.reconnectDelays.count, seconds: delay, reason: reason))
        var waited = 0
        while waited < Int(delay * 1000) {
            guard isCurrent(request.serial) else { return false }
            waitForWork(milliseconds: 50)
            waited += 50
        }
        return isCurrent(request.serial)
    }
}

/// The newest decoded chunk, held back one step so that a stream that drops ends in a fade rather
/// than a step, and the first chunk after it fades in. Decode thread only.
struct HeldChunk {
    private(set) var samples = [Float](repeating: 0, count: Player.chunkFrames * 2)
    private var frames = 0
    private var fadeInNext = false

    /// Holds `chunk`'s `count` frames and puts the chunk held before into `chunk`; returns its
    /// frame count, nil when none was held.
    mutating func swap(_ chunk: inout [Float], frames count: Int) -> Int? {
        if fadeInNext {
            fadeInNext = false
            HeldChunk.ramp(&chunk, frames: min(Player.fadeFrames, count), from: 0, to: 1, start: 0)
        }
        Swift.swap(&samples, &chunk)
        let previous = frames
        frames = count
        return previous > 0 ? previous : nil
    }

    /// Gives up the held chunk (in `samples`, faded to silence when `fadingOut`); nil when none.
    mutating func release(fadingOut: Bool = false) -> Int? {
        let count = frames
        frames = 0
        if fadingOut {
            fadeInNext = true
            let length = min(Player.fadeFrames, count)
            HeldChunk.ramp(&samples, frames: length, from: 1, to: 0, start: count - length)
        }
        return count > 0 ? count : nil
    }

    private static func ramp(_ samples: inout [Float], frames: Int, from: Float, to: Float, start: Int) {
        for frame in 0..<frames {
            let level = from + (to - from) * Float(frame + 1) / Float(frames)
            samples[(start + frame) * 2] *= level
            samples[(start + frame) * 2 + 1] *= level
        }
    }
}
