import DeckBase

/// `file:PATH.opus`: an Ogg Opus file, pages written by the file's own writer thread once per
/// batch of packets (at least every 500 ms). Each run of the output is one Ogg link ending with its EOS
/// page; the next run chains a new link (new serial, new headers) onto the same file, which Ogg
/// players play through. Loop-thread-confined.
public final class OggFileSink: Sink {
    public let uri: String
    private var counters = SinkStatus()
    private let file: LoopFile
    private var muxer: OggOpusMuxer?
    /// Pages of the batch being delivered, handed to the writer together at its end.
    private var pages: [UInt8] = []
    private let context: SinkContext

    init(path: String, mode: LoopFile.OpenMode, context: SinkContext) throws(SinkError) {
        uri = SinkURI.file(path: path, pipe: mode == .pipe).description
        self.context = context
        do {
            file = try LoopFile(loop: context.loop, path: path, mode: mode)
        } catch {
            throw .cannotOpen(uri, error.description)
        }
        file.onError = { [weak self] error, lostBytes in
            guard let self else { return }
            counters.bytes -= lostBytes
            guard counters.count(error: error.description) else { return }
            context.logger.error("sinks", event: .sinkFailed, "\(uri): \(error) (\(counters.errors) failed writes so far)")
        }
        file.onDeleted = { [weak self] in
            guard let self else { return }
            let problem = "the file was deleted (or its folder removed) while being written; nothing more is written to it"
            _ = counters.count(error: problem)
            counters.failed = true
            context.logger.error("sinks", event: .sinkFailed, "\(uri): \(problem); remove this sink and add a new one")
            file.close()
        }
    }

    public var status: SinkStatus {
        var status = counters
        status.finished = counters.packets > 0 && muxer == nil && file.isIdle
        return status
    }

    /// A file is read once written, not as it grows: its packets wait up to half a second (five
    /// 100 ms pages), so the loop and the file's writer wake twice a second, not ten times.
    public var batchMilliseconds: Int { 500 }

    public func deliver(_ packet: EncodedPacket) {
        guard file.isOpen else {
            counters.droppedPackets += 1
            return
        }
        if muxer == nil {
            let muxer = OggOpusMuxer(preSkip: context.preSkip)
            muxer.headerPages.forEach { pages += $0 }
            self.muxer = muxer
        }
        muxer?.append(packet, to: &pages)
        counters.packets += 1
    }

    /// One write (and one wake-up of the writer) per batch, not per page.
    public func endBatch() {
        guard !pages.isEmpty else { return }
        if file.write(pages) { counters.bytes += pages.count }
        pages.removeAll(keepingCapacity: true)
    }

    /// The link ended (its EOS page is written); the next packet starts a new one.
    public func finish() {
        endBatch()
        muxer = nil
    }

    public func close() {
        endBatch()
        file.close()
    }
}
