import DeckSDK
import CFFmpeg
import Glibc

/// A cover picture made to fit what a car shows: one over `maxBytes` (a 3000-pixel scan, an
/// uncompressed PNG) or `maxUnscaledSide` is decoded, scaled down to `maxSide` pixels keeping its
/// shape, turned as its EXIF says, and encoded again as JPEG (as PNG when transparent), so now
/// playing and the screen take it instead of refusing it; and a folder's own cover for the files
/// that hold none.
public enum CoverImage {
    /// Larger covers are made smaller; the runtime's default limits take 1 MiB.
    public static let maxBytes = 512 << 10
    /// The longer side of a cover made smaller, in pixels.
    public static let maxSide = 600
    /// Covers with a longer side are made smaller whatever their bytes: a 20,000-pixel picture of
    /// one colour is small to send and a gigabyte for the screen to draw.
    public static let maxUnscaledSide = 1_200

    /// The names of a folder's own cover, best first, in any case: what rippers and stores write
    /// beside an album's files when the files hold none.
    static let folderCoverNames = ["cover", "folder", "front", "album", "albumart"].flatMap { name in
        ["jpg", "jpeg", "png"].map { "\(name).\($0)" }
    }

    /// The cover beside the file at `path` (`cover.jpg`, `Folder.JPG`, …), at most 16 MiB: the best
    /// named that holds a picture (an empty `cover.jpg`, a download that failed, gives way to
    /// `folder.jpg`); nil when its folder has none or none can be read.
    public static func beside(_ path: String) -> [UInt8]? {
        guard let directory = opendir(FileBytes.folder(of: path)) else { return nil }
        var found: [Int: String] = [:]
        while let entry = readdir(directory) {
            let name = String(decoding: FileBytes.entryName(entry), as: UTF8.self)
            if let rank = folderCoverNames.firstIndex(of: name.lowercased()), found[rank] == nil { found[rank] = name }
        }
        closedir(directory)
        for (_, name) in found.sorted(by: { $0.key < $1.key }) {
            if let bytes = FileBytes.read(FileBytes.folder(of: path) + "/" + name, maxBytes: 16 << 20), codec(for: bytes) != nil { return bytes }
        }
        return nil
    }

    /// The decoder for `bytes`, by their signature: PNG and JPEG, which a head unit draws, and GIF,
    /// BMP, WebP and TIFF, which tags and folders hold too and which are made a JPEG or PNG.
    static func codec(for bytes: [UInt8]) -> AVCodecID? {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return AV_CODEC_ID_PNG }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return AV_CODEC_ID_MJPEG }
        if bytes.starts(with: "GIF8".utf8) { return AV_CODEC_ID_GIF }
        if bytes.starts(with: "BM".utf8) { return AV_CODEC_ID_BMP }
        if bytes.starts(with: "RIFF".utf8), bytes.count >= 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return AV_CODEC_ID_WEBP }
        if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return AV_CODEC_ID_TIFF }
        return nil
    }

    /// Whether `fitted` makes `bytes` over: neither PNG nor JPEG, over `limit`, or over
    /// `maxUnscaledSide` pixels a side.
    static func needsFitting(_ bytes: [UInt8], over limit: Int = maxBytes) -> Bool {
        let codec = codec(for: bytes)
        return (codec != AV_CODEC_ID_PNG && codec != AV_CODEC_ID_MJPEG) || bytes.count > limit
            || (ImageSize(header: bytes).map { max($0.width, $0.height) > maxUnscaledSide } ?? false)
    }

    /// `bytes` as they are when a PNG or JPEG not over `limit` nor `maxUnscaledSide` pixels a side,
    /// else made over; nil when they are no picture FFmpeg can decode.
    public static func fitted(_ bytes: [UInt8], over limit: Int = maxBytes) -> [UInt8]? {
        guard needsFitting(bytes, over: limit) else { return bytes }
        guard bytes.count <= 64 << 20 else { return nil }  // larger than any cover read, and than a packet's Int32 size
        _ = MediaSource.allocationLimit  // a picture that claims 16384 pixels a side fails to allocate, not takes a GiB
        guard let frame = decode(bytes) else { return nil }
        defer { free(frame) }
        // Turned as its EXIF says (a phone's photo is stored as the camera was held): the picture
        // made here carries no EXIF.
        guard let scaled = shrink(frame, to: AV_PIX_FMT_RGBA), let rgba = oriented(scaled, as: orientation(of: frame)) else { return nil }
        defer { free(rgba) }
        // A transparent picture stays a PNG (JPEG has no alpha: its clear parts would come out black).
        if mayBeTransparent(frame), isTransparent(rgba), let png = encode(rgba, as: AV_CODEC_ID_PNG), png.count <= limit { return png }
        guard let yuv = shrink(rgba, to: AV_PIX_FMT_YUVJ420P) else { return nil }
        defer { free(yuv) }
        return encode(yuv, as: AV_CODEC_ID_MJPEG)
    }

    static func free(_ frame: UnsafeMutablePointer<AVFrame>) {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
    }

    /// Whether the frame's format carries alpha: its own channel, or a palette's (whose entries
    /// past the PNG's `tRNS` FFmpeg makes opaque).
    private static func mayBeTransparent(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        if format == AV_PIX_FMT_PAL8, let palette = frame.pointee.data.1 {
            return (0..<256).contains { UnsafeRawPointer(palette).loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) >> 24 != 0xFF }
        }
        return av_pix_fmt_desc_get(format).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 } ?? false
    }

    /// Whether an RGBA frame has a pixel not wholly opaque (many PNGs carry alpha they never use).
    private static func isTransparent(_ frame: UnsafeMutablePointer<AVFrame>) -> Bool {
        let (width, height, stride) = (Int(frame.pointee.width), Int(frame.pointee.height), Int(frame.pointee.linesize.0))
        guard let pixels = frame.pointee.data.0 else { return false }
        return (0..<height).contains { row in (0..<width).contains { pixels[row * stride + $0 * 4 + 3] != 0xFF } }
    }

    private static func decode(_ bytes: [UInt8]) -> UnsafeMutablePointer<AVFrame>? {
        guard let id = codec(for: bytes), let codec = avcodec_find_decoder(id), let context = avcodec_alloc_context3(codec) else { return nil }
        defer { var owned: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&owned) }
        context.pointee.thread_count = 1
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet, avcodec_open2(context, codec, nil) >= 0, av_new_packet(packet, Int32(bytes.count)) >= 0 else { return nil }
        bytes.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        var frame = av_frame_alloc()
        guard let decoded = frame, avcodec_send_packet(context, packet) >= 0, avcodec_receive_frame(context, decoded) >= 0,
              (1...16_384).contains(decoded.pointee.width), (1...16_384).contains(decoded.pointee.height) else {
            av_frame_free(&frame)
            return nil
        }
        return decoded
    }

    /// The frame at most `maxSide` pixels a side, in `format`: RGBA first (to be turned, and kept
    /// for a transparent PNG), then JPEG's full-range 4:2:0 at the same size.
    private static func shrink(_ frame: UnsafeMutablePointer<AVFrame>, to format: AVPixelFormat) -> UnsafeMutablePointer<AVFrame>? {
        let (width, height) = (Int(frame.pointee.width), Int(frame.pointee.height))
        // Checked here as well as in `decode`: the products below then stay far inside Int.
        guard (1...16_384).contains(width), (1...16_384).contains(height) else { return nil }
        let scale = min(1, Double(maxSide) / Double(max(width, height)))
        let (outWidth, outHeight) = (max(2, Int(Double(width) * scale) & ~1), max(2, Int(Double(height) * scale) & ~1))
        guard let scaler = sws_getContext(Int32(width), Int32(height), AVPixelFormat(rawValue: frame.pointee.format), Int32(outWidth), Int32(outHeight),
                                          format, SWS_AREA, nil, nil, nil) else { return nil }
        defer { sws_freeContext(scaler) }
        var out = av_frame_alloc()
        guard let scaled = out else { return nil }
        scaled.pointee.width = Int32(outWidth)
        scaled.pointee.height = Int32(outHeight)
        scaled.pointee.format = format.rawValue
        guard av_frame_get_buffer(scaled, 0) >= 0 else {
            av_frame_free(&out)
            return nil
        }
        let (from, to) = (frame.pointee, scaled.pointee)
        let source = [from.data.0, from.data.1, from.data.2, from.data.3].map { $0.map { UnsafePointer($0) } }
        let rows = sws_scale(scaler, source, [from.linesize.0, from.linesize.1, from.linesize.2, from.linesize.3], 0, Int32(height),
                             [to.data.0, to.data.1, to.data.2, to.data.3], [to.linesize.0, to.linesize.1, to.linesize.2, to.linesize.3])
        guard rows == outHeight else {
            av_frame_free(&out)
            return nil
        }
        return scaled
    }

    /// `frame` as a JPEG at quality 4 (of 2–31, lower is better) or as a PNG.
    private static func encode(_ frame: UnsafeMutablePointer<AVFrame>, as id: AVCodecID) -> [UInt8]? {
        guard let codec = avcodec_find_encoder(id), let context = avcodec_alloc_context3(codec) else { return nil }
        defer { var owned: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&owned) }
        context.pointee.width = frame.pointee.width
        context.pointee.height = frame.pointee.height
        context.pointee.pix_fmt = AVPixelFormat(rawValue: frame.pointee.format)
        context.pointee.time_base = AVRational(num: 1, den: 25)
        if id == AV_CODEC_ID_MJPEG {
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = 4 * FF_QP2LAMBDA
            frame.pointee.quality = context.pointee.global_quality
        }
        var packet = av_packet_alloc()
        defer { av_packet_free(&packet) }
        guard let packet, avcodec_open2(context, codec, nil) >= 0, avcodec_send_frame(context, frame) >= 0,
              avcodec_receive_packet(context, packet) >= 0, let data = packet.pointee.data, packet.pointee.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }
}
