import DeckBase

/// What every sink needs to know about the output it carries.
public struct SinkContext {
    public var loop: EventLoop
    public var logger: Logger
    /// The encoder's delay, announced as the Ogg pre-skip.
    public var preSkip: Int
    public var frameSize: FrameSize
    public var encoder: EncoderSettings
    public var http = HTTPStreamSink.Limits()
    /// Shared by every sink of the output, so a gate set after they opened holds for them too.
    public var listeners = ListenerGate()
    /// Whether a file sink may replace an existing regular file (never a link, FIFO or device).
    public var overwriteFiles = false

    public init(loop: EventLoop, logger: Logger, preSkip: Int, frameSize: FrameSize, encoder: EncoderSettings) {
        self.loop = loop
        self.logger = logger
        self.preSkip = preSkip
        self.frameSize = frameSize
        self.encoder = encoder
    }
}

extension SinkURI {
    /// Opens the sink this URI names: binds its socket, creates its file, writes its SDP.
    public func makeSink(_ context: SinkContext) throws(SinkError) -> any Sink {
        switch self {
        case .file(let path, let pipe):
            return try OggFileSink(path: path, mode: pipe ? .pipe : context.overwriteFiles ? .overwrite : .create, context: context)
        case .http(let host, let port, let path):
            return try HTTPStreamSink(host: host, port: port, path: path, context: context)
        case .rtp(let host, let port, let payloadType, let sdpPath):
            return try RTPSink(host: host, port: port, payloadType: payloadType, sdpPath: sdpPath, context: context)
        }
    }
}
