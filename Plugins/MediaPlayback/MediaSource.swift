import CFFmpeg
import Glibc
import Synchronization

/// One media file or network stream opened by FFmpeg (libavformat reads files, HTTP, Icecast with
/// ICY metadata; libavcodec decodes; libswresample converts) and decoded to 48 kHz stereo float.
/// Used from one thread at a time; `Cancellation` stops a blocking read from any thread.
public final class MediaSource {
    public static let sampleRate = 48_000
    /// Where a position may lie, in seconds (a file's numbers are checked against it).
    public static let positions = 0.0...1e9
    /// FFmpeg's demuxers for the music files Deck plays from a path (FLAC, Ogg, MP3, MP4/M4A, AAC,
    /// WAV, WavPack, APE, Matroska, AIFF): never one that opens other files or waits for a live
    /// playlist (HLS, concat), which a file on a stick could otherwise ask for.
    static let fileFormats = "flac,ogg,mp3,mov,aac,loas,wav,w64,wv,ape,matroska,aiff"
    /// How long a file may take to open by default: a sound one takes milliseconds.
    public static let openSeconds = 5
    /// FFmpeg's largest single allocation in this process, set before its first use: a WAV of 246
    /// bytes whose INFO chunk claimed 4 GB had FFmpeg allocate and zero 1.6 GB for its tags. No
    /// music file needs one this large (a 50-hour audiobook's sample table is about 35 MB).
    static let allocationLimit: Void = av_max_alloc(64 << 20)
    /// A tag is cut to this many bytes: now playing takes texts of up to 1,024 (nowPlaying.maxStringBytes).
    static let maxTagBytes = 1_024

    public let url: String
    /// What the container and the audio stream say about themselves (lower-case keys).
    public internal(set) var tags: [String: String] = [:]
    /// Seconds, when the source knows its length (nil for live streams).
    public let duration: Double?
    /// The embedded cover picture's bytes (at most 16 MiB), when there is one.
    public let cover: [UInt8]?

    var format: UnsafeMutablePointer<AVFormatContext>?
    var codec: UnsafeMutablePointer<AVCodecContext>?
    var resampler: OpaquePointer?
    var resamplerInput: (rate: Int32, format: Int32, channels: Int32) = (0, 0, 0)
    let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    let streamIndex: Int32
    let cancellation: Cancellation
    private let interrupt: SourceInterrupt
    /// Converted frames not handed out yet (interleaved stereo), from `pendingStart`.
    var pending: [Float] = []
    var pendingStart = 0
    var draining = false
    var finished = false
    /// Seconds of leading audio still to drop after a seek (frames before the target).
    var skipUntil: Double?

    /// Opens `url` (a path or an http(s)/icecast URL). `decode` false reads only tags, duration
    /// and cover. `timeoutSeconds` bounds each network read, `openSeconds` the opening of a file.
    /// `live`: probe only the first 32 KiB (half a second), since a stream arrives in real time
    /// and the driver waits for it.
    public init(url: String, decode: Bool = true, live: Bool = false, timeoutSeconds: Int = 10, openSeconds: Int = MediaSource.openSeconds,
                cancellation: Cancellation = Cancellation()) throws(MediaError) {
        _ = MediaSource.allocationLimit
        self.url = url
        self.cancellation = cancellation
        let isFile = !url.contains("://") || url.lowercased().hasPrefix("file:")
        let deadline = Monotonic.nanoseconds + max(0, min(openSeconds, 600)) * 1_000_000_000
        let interrupt = SourceInterrupt(cancellation: cancellation, deadline: isFile ? deadline : nil)
        self.interrupt = interrupt
        guard let packet = av_packet_alloc(), let frame = av_frame_alloc() else { throw .open(url, "out of memory") }
        self.packet = packet
        self.frame = frame
        var context = avformat_alloc_context()
        context?.pointee.interrupt_callback = interrupt.callback
        var options: OpaquePointer?
        av_dict_set(&options, "rw_timeout", "\(max(1, min(timeoutSeconds, 600)) * 1_000_000)", 0)
        av_dict_set(&options, "user_agent", "Deck/0.1", 0)
        av_dict_set(&options, "icy", "1", 0)
        FFmpegLog.name(file: isFile ? url : nil)  // a stream's URL may carry a password
        if isFile { av_dict_set(&options, "format_whitelist", MediaSource.fileFormats, 0) }
        if live {
            av_dict_set(&options, "formatprobesize", "32768", 0)
            av_dict_set(&options, "probesize", "32768", 0)
            av_dict_set(&options, "analyzeduration", "500000", 0)
        }
        let opened = avformat_open_input(&context, url, nil, &options)
        av_dict_free(&options)
        guard opened >= 0, let context else {
            av_packet_free_(packet); av_frame_free_(frame)
            FFmpegLog.name(file: nil)
            if isFile && opened == -EINVAL {  // what the whitelist answers, or a listed demuxer that cannot make sense of it
                throw .refused(url, "not a FLAC, Ogg, MP3, MP4/M4A, AAC, WAV, WavPack, APE, Matroska or AIFF file that FFmpeg can read")
            }
            throw cancellation.isCancelled ? .cancelled : interrupt.expired ? MediaError.tooSlowToOpen(url, openSeconds) : MediaError.opening(url, opened)
        }
        format = context
        func fail(_ error: MediaError) -> MediaError {
            var context: UnsafeMutablePointer<AVFormatContext>? = context
            avformat_close_input(&context)
            av_packet_free_(packet); av_frame_free_(frame)
            FFmpegLog.name(file: nil)
            return error
        }
        let probed = avformat_find_stream_info(context, nil)
        guard probed >= 0 else {
            throw fail(cancellation.isCancelled ? .cancelled : interrupt.expired ? MediaError.tooSlowToOpen(url, openSeconds) : MediaError.opening(url, probed))
        }
        interrupt.deadline = nil
        let best = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard best >= 0, let stream = context.pointee.streams[Int(best)] else { throw fail(.noAudio(url)) }
        let parameters = stream.pointee.codecpar.pointee
        let codecName = parameters.codec_id == AV_CODEC_ID_NONE ? "an unknown audio format (tag 0x\(String(parameters.codec_tag, radix: 16)))"
            : avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "?"
        if decode {
            guard let decoder = avcodec_find_decoder(parameters.codec_id) else {
                throw fail(.decoder("FFmpeg has no decoder for \(codecName)"))
            }
            var codecContext = avcodec_alloc_context3(decoder)
            guard let created = codecContext, avcodec_parameters_to_context(created, stream.pointee.codecpar) >= 0,
                  avcodec_open2(created, decoder, nil) >= 0 else {
                avcodec_free_context(&codecContext)
                throw fail(.decoder("cannot open the \(codecName) decoder"))
            }
            codec = created
        }

        // Nothing throws from here: once the constants below are set, a throw would run `deinit`,
        // which would close again what `fail` closed.
        streamIndex = best
        var picture: [UInt8]?
        for index in 0..<Int(context.pointee.nb_streams) {
            guard let candidate = context.pointee.streams[index], candidate.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 else { continue }
            let size = Int(candidate.pointee.attached_pic.size)
            if let data = candidate.pointee.attached_pic.data, (1...16 << 20).contains(size) {
                picture = Array(UnsafeBufferPointer(start: data, count: size))
                break
            }
        }
        cover = picture
        let length = context.pointee.duration
        duration = length > 0 && length != Int64.min ? min(Double(length) / Double(AV_TIME_BASE), MediaSource.positions.upperBound) : nil
        tags = readTags()
    }

    deinit {
        close()
        av_packet_free_(packet)
        av_frame_free_(frame)
        FFmpegLog.name(file: nil)
    }

    func close() {
        if codec != nil { avcodec_free_context(&codec) }
        if resampler != nil { swr_free(&resampler) }
        if format != nil { avformat_close_input(&format) }
    }
}

/// Stops a source's blocking reads (network waits) from another thread.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    private let parent: Cancellation?
    private let condition: (@Sendable () -> Bool)?

    public init() {
        parent = nil
        condition = nil
    }

    /// Cancelled with `parent`, or once `condition` holds: asked at each look, which FFmpeg takes
    /// about every 100 ms while it waits on the network.
    public init(with parent: Cancellation, or condition: @escaping @Sendable () -> Bool) {
        self.parent = parent
        self.condition = condition
    }

    public var isCancelled: Bool { flag.load(ordering: .acquiring) || parent?.isCancelled == true || condition?() == true }
    public func cancel() { flag.store(true, ordering: .releasing) }

    /// FFmpeg's interrupt callback for this flag; valid while the flag lives.
    var interrupt: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in opaque.map { Unmanaged<Cancellation>.fromOpaque($0).takeUnretainedValue().isCancelled ? 1 : 0 } ?? 0 },
                        opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}

/// Why a source could not be opened or read.
public enum MediaError: Error, CustomStringConvertible, Equatable {
    /// Opening failed in a way that may pass (the network, a server error, a timeout).
    case open(String, String)
    /// The server or the data said no for good (4xx, not a media format).
    case refused(String, String)
    case noAudio(String)
    case decoder(String)
    case read(String)
    case cancelled

    public var description: String {
        switch self {
        case .open(let url, let reason), .refused(let url, let reason): "cannot open \(url): \(reason)"
        case .noAudio(let url): "\(url) has no audio stream"
        case .decoder(let reason): reason
        case .read(let reason): "reading failed: \(reason)"
        case .cancelled: "cancelled"
        }
    }

    /// True when trying again cannot help.
    public var isPermanent: Bool {
        switch self {
        case .refused, .noAudio, .decoder: true
        case .open, .read, .cancelled: false
        }
    }

    /// The error for FFmpeg's `code` on opening `url`: refused for an HTTP 4xx or data that is no media.
    /// A file FFmpeg could not make sense of within `seconds`.
    static func tooSlowToOpen(_ url: String, _ seconds: Int) -> MediaError {
        .refused(url, "FFmpeg read it for \(seconds) s without finding its audio: a damaged file, or not music")
    }

    static func opening(_ url: String, _ code: Int32) -> MediaError {
        let permanent = [deck_averror_http_400(), deck_averror_http_401(), deck_averror_http_403(), deck_averror_http_404(),
                         deck_averror_http_4xx(), deck_averror_invalid_data()].contains(code)
        return permanent ? .refused(url, text(code)) : .open(url, text(code))
    }

    /// FFmpeg's words for an error code.
    static func text(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { pointer in
            _ = pointer.withMemoryRebound(to: CChar.self) { av_strerror(code, $0.baseAddress, $0.count) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
    }
}

private func av_packet_free_(_ packet: UnsafeMutablePointer<AVPacket>) {
    var pointer: UnsafeMutablePointer<AVPacket>? = packet
    av_packet_free(&pointer)
}

private func av_frame_free_(_ frame: UnsafeMutablePointer<AVFrame>) {
    var pointer: UnsafeMutablePointer<AVFrame>? = frame
    av_frame_free(&pointer)
}
