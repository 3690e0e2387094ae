import CFFmpeg

extension CoverImage {
    /// The EXIF orientation FFmpeg read from a JPEG (1 to 8: 6 is turned a quarter clockwise);
    /// 1, as stored, when there is none or it is out of range.
    static func orientation(of frame: UnsafeMutablePointer<AVFrame>) -> Int {
        guard let entry = av_dict_get(frame.pointee.metadata, "Orientation", nil, 0), let value = entry.pointee.value,
              let number = Int(String(cString: value).filter { $0 != " " }), (1...8).contains(number) else { return 1 }
        return number
    }

    /// The RGBA `frame` turned and mirrored as EXIF `orientation` says, for display: `frame` itself
    /// for 1, else a new frame (and `frame` is freed); nil when one cannot be had.
    static func oriented(_ frame: UnsafeMutablePointer<AVFrame>, as orientation: Int) -> UnsafeMutablePointer<AVFrame>? {
        guard orientation != 1 else { return frame }
        defer { free(frame) }
        let (width, height) = (Int(frame.pointee.width), Int(frame.pointee.height))
        let swapped = orientation >= 5
        guard let turned = av_frame_alloc() else { return nil }
        turned.pointee.width = Int32(swapped ? height : width)
        turned.pointee.height = Int32(swapped ? width : height)
        turned.pointee.format = AV_PIX_FMT_RGBA.rawValue
        guard av_frame_get_buffer(turned, 0) >= 0, let source = frame.pointee.data.0, let target = turned.pointee.data.0 else {
            free(turned)
            return nil
        }
        let (from, to) = (UnsafeRawPointer(source), UnsafeMutableRawPointer(target))
        let (fromStride, toStride) = (Int(frame.pointee.linesize.0), Int(turned.pointee.linesize.0))
        for y in 0..<Int(turned.pointee.height) {
            for x in 0..<Int(turned.pointee.width) {
                let (sourceX, sourceY): (Int, Int) = switch orientation {
                case 2: (width - 1 - x, y)
                case 3: (width - 1 - x, height - 1 - y)
                case 4: (x, height - 1 - y)
                case 5: (y, x)
                case 6: (y, height - 1 - x)
                case 7: (width - 1 - y, height - 1 - x)
                default: (width - 1 - y, x)  // 8
                }
                let pixel = from.loadUnaligned(fromByteOffset: sourceY * fromStride + sourceX * 4, as: UInt32.self)
                to.storeBytes(of: pixel, toByteOffset: y * toStride + x * 4, as: UInt32.self)
            }
        }
        return turned
    }
}
