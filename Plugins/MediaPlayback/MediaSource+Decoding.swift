import CFFmpeg

extension MediaSource {
    /// Decodes up to `frames` frames into `samples` (interleaved stereo); returns how many were
    /// written, 0 only at the end. A damaged frame is skipped; a failed read throws.
    public func read(into samples: UnsafeMutablePointer<Float>, frames: Int) throws(MediaError) -> Int {
        var written = 0
        while written < frames {
            if pendingStart < pending.count {
                let count = min(frames - written, (pending.count - pendingStart) / 2)
                pending.withUnsafeBufferPointer { source in
                    (samples + written * 2).update(from: source.baseAddress! + pendingStart, count: count * 2)
                }
                pendingStart += count * 2
                written += count
                continue
            }
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            if finished { break }
            try decodeMore()
        }
        return written
    }

    /// Moves to `seconds` from the start (clamped to the source), exactly: the frames before it
    /// that the container's seek point brings are dropped.
    public func seek(to seconds: Double) throws(MediaError) {
        guard let format, let codec else { return }
        let target = min(max(seconds.isFinite ? seconds : 0, 0), duration ?? 0)
        let stamp = Int64(target * Double(AV_TIME_BASE))
        let status = avformat_seek_file(format, -1, Int64.min, stamp, stamp, 0)
        guard status >= 0 else { throw .read("cannot seek in \(url): \(MediaError.text(status))") }
        avcodec_flush_buffers(codec)
        if resampler != nil { swr_free(&resampler) }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        finished = false
        draining = false
        skipUntil = target
    }

    /// New tags since the last call, nil when nothing changed: an ICY `StreamTitle` (which FFmpeg
    /// copies into the container's tags), or an Ogg stream's new comments.
    public func tagUpdates() -> [String: String]? {
        guard let format else { return nil }
        var changed = false
        if format.pointee.event_flags & AVFMT_EVENT_FLAG_METADATA_UPDATED != 0 {
            format.pointee.event_flags &= ~AVFMT_EVENT_FLAG_METADATA_UPDATED
            changed = true
        }
        if let stream = format.pointee.streams[Int(streamIndex)], stream.pointee.event_flags & AVSTREAM_EVENT_FLAG_METADATA_UPDATED != 0 {
            stream.pointee.event_flags &= ~AVSTREAM_EVENT_FLAG_METADATA_UPDATED
            changed = true
        }
        guard changed else { return nil }
        let fresh = readTags()
        guard fresh != tags else { return nil }
        tags = fresh
        return fresh
    }

    /// The container's and the audio stream's tags, keys in lower case.
    func readTags() -> [String: String] {
        guard let format else { return [:] }
        var result: [String: String] = [:]
        func add(_ dictionary: OpaquePointer?) {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = next
                guard let key = next.pointee.key, let value = next.pointee.value else { continue }
                let text = MediaSource.tagText(UnsafeRawBufferPointer(start: value, count: strlen(value))).trimmingSpaces
                if !text.isEmpty { result[String(cString: key).lowercased()] = String(text.prefix(maxBytes: MediaSource.maxTagBytes)) }
            }
        }
        add(format.pointee.metadata)
        if let stream = format.pointee.streams[Int(streamIndex)] { add(stream.pointee.metadata) }
        // A broadcaster's "artist - title" in ICY's StreamTitle.
        if let streamTitle = result["streamtitle"] {
            let parts = streamTitle.split(separator: " - ", maxSplits: 1).map { String($0).trimmingSpaces }
            result["title"] = parts.count == 2 ? parts[1] : streamTitle
            result["artist"] = parts.count == 2 ? parts[0] : nil
        }
        return result
    }

    /// A tag's bytes as text: UTF-8 when they are, else Latin-1, as ICY titles often are (FFmpeg
    /// passes a station's StreamTitle on as it came, where "Beyoncé" in ISO 8859-1 would show "Beyonc�").
    static func tagText(_ bytes: UnsafeRawBufferPointer) -> String {
        String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    private func decodeMore() throws(MediaError) {
        guard let format, let codec else {
            finished = true
            return
        }
        while pending.isEmpty {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                defer { av_frame_unref(frame) }
                try convert()
                continue
            }
            if received == deck_averror_eof() {
                flushResampler()
                finished = true
                return
            }
            if received != deck_averror_eagain() { continue }  // a damaged frame: the next one may decode
            if draining {
                finished = true
                return
            }
            let status = av_read_frame(format, packet)
            if status < 0 {
                if cancellation.isCancelled { throw .cancelled }
                guard status == deck_averror_eof() else { throw .read(MediaError.text(status)) }
                draining = true
                avcodec_send_packet(codec, nil)
                continue
            }
            if packet.pointee.stream_index == streamIndex {
                _ = avcodec_send_packet(codec, packet)  // a packet the decoder refuses is skipped
            }
            av_packet_unref(packet)
        }
    }

    /// Converts the decoded frame to 48 kHz stereo float at the end of `pending`.
    private func convert() throws(MediaError) {
        let input = (rate: frame.pointee.sample_rate, format: frame.pointee.format, channels: frame.pointee.ch_layout.nb_channels)
        guard (1_000...768_000).contains(input.rate), (1...64).contains(input.channels), (1...1 << 20).contains(frame.pointee.nb_samples) else {
            throw .decoder("\(url): a frame of \(input.channels) channels at \(input.rate) Hz cannot be played")
        }
        if resampler == nil || input != resamplerInput {
            if resampler != nil { swr_free(&resampler) }
            var output = AVChannelLayout()
            av_channel_layout_default(&output, 2)
            var layout = frame.pointee.ch_layout
            if layout.order == AV_CHANNEL_ORDER_UNSPEC { av_channel_layout_default(&layout, input.channels) }
            guard swr_alloc_set_opts2(&resampler, &output, AV_SAMPLE_FMT_FLT, Int32(MediaSource.sampleRate), &layout,
                                      AVSampleFormat(rawValue: input.format), input.rate, 0, nil) >= 0, swr_init(resampler) >= 0 else {
                throw .decoder("\(url): cannot convert its \(input.channels) channels at \(input.rate) Hz")
            }
            resamplerInput = input
        }
        let start = pending.count
        let converted = resample(input: frame.pointee.extended_data, count: frame.pointee.nb_samples)
        dropBeforeSeekTarget(from: start, converted: converted)
    }

    /// Runs the resampler on `count` input frames (none: its delayed tail) into `pending`.
    @discardableResult
    private func resample(input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int32) -> Int {
        let capacity = Int(swr_get_out_samples(resampler, count))
        guard capacity > 0 else { return 0 }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: capacity * 2))
        let kept = pending.withUnsafeMutableBufferPointer { buffer -> Int in
            var out: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: UInt8.self)
            let converted = input.map { input in
                input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 64) { planes in swr_convert(resampler, &out, Int32(capacity), planes, count) }
            } ?? swr_convert(resampler, &out, Int32(capacity), nil, 0)
            let kept = max(0, min(Int(converted), capacity))
            // A damaged or float file may decode to NaN or infinity: silence, not garbage for the runtime to refuse.
            for index in start..<(start + kept * 2) where !buffer[index].isFinite { buffer[index] = 0 }
            return kept
        }
        pending.removeLast((capacity - kept) * 2)
        return kept
    }

    private func flushResampler() {
        if resampler != nil { resample(input: nil, count: 0) }
    }

    /// After a seek, drops what lies before the target (the decoder starts at a seek point).
    private func dropBeforeSeekTarget(from start: Int, converted: Int) {
        guard let target = skipUntil, let format, let stream = format.pointee.streams[Int(streamIndex)] else { return }
        let stamp = frame.pointee.best_effort_timestamp
        let base = stream.pointee.time_base
        guard stamp != Int64.min, base.num > 0, base.den > 0 else {
            skipUntil = nil
            return
        }
        let seconds = Double(stamp) * Double(base.num) / Double(base.den)
        guard seconds.isFinite, MediaSource.positions.contains(seconds) || seconds < 0 else {
            skipUntil = nil
            return
        }
        let early = (target - seconds) * Double(MediaSource.sampleRate)
        if early <= 0 {
            skipUntil = nil
            return
        }
        let drop = early >= Double(converted) ? converted : Int(early)
        pending.removeSubrange(start..<(start + drop * 2))
        if drop < converted { skipUntil = nil }
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }

    /// The longest run of whole characters from the start that takes at most `maxBytes` in UTF-8.
    func prefix(maxBytes: Int) -> Substring {
        guard utf8.count > maxBytes else { return self[...] }
        var budget = maxBytes
        return prefix { character in
            budget -= character.utf8.count
            return budget >= 0
        }
    }
}
