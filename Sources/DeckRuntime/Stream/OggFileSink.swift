/// `file:PATH.opus`: an Ogg Opus file, pages written through libuv's thread pool as they are
/// flushed (at least every 100 ms), ending with the EOS page. Loop-thread-confined.
public final class OggFileSink: Sink {
    public let uri: String
    public private(set) var status = SinkStatus()
    private let file: LoopFile
    private var muxer: OggOpusMuxer?
    private let context: SinkContext

    init(path: String, context: SinkContext) throws(SinkError) {
        uri = SinkURI.file(path: path).description
        self.context = context
        do {
            file = try LoopFile(loop: context.loop, path: path)
        } catch {
            throw .cannotOpen(uri, error.description)
        }
        file.onError = { [weak self] error in
            guard let self, status.count(error: error.description) else { return }
            context.logger.error("sinks", "\(uri): \(error) (\(status.errors) failed writes so far)")
        }
    }

    public func deliver(_ packet: EncodedPacket) {
        guard file.isOpen else { return }
        if muxer == nil {
            let muxer = OggOpusMuxer(preSkip: context.preSkip)
            muxer.headerPages.forEach(write)
            self.muxer = muxer
        }
        muxer?.pages(for: packet).forEach(write)
        status.packets += 1
    }

    public func finish() { file.close { [weak self] in self?.status.finished = true } }

    public func close() { file.close() }

    private func write(_ page: [UInt8]) {
        file.write(page)
        status.bytes += page.count
    }
}
