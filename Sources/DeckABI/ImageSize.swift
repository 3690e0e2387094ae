/// The width and height a PNG's header or a JPEG's frame header gives, read without decoding:
/// what the runtime holds images to (`nowPlaying.maxArtworkPixels`, `ui.maxImagePixels`) and what
/// an app checks before handing a picture over.
public struct ImageSize: Equatable, Sendable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The size `bytes` claim; nil when they hold no PNG IHDR or JPEG frame header.
    public init?(header bytes: [UInt8]) {
        func number(at offset: Int, bytes count: Int) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            return bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | Int($1) }
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8), let width = number(at: 16, bytes: 4),
                  let height = number(at: 20, bytes: 4) else { return nil }
            self.init(width: width, height: height)
            return
        }
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var offset = 2
        while offset + 3 < bytes.count {
            // Bytes between segments are skipped to the next marker, as libjpeg and FFmpeg do.
            guard bytes[offset] == 0xFF else { offset += 1; continue }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill
            if marker == 0xDA || marker == 0xD9 { return nil }  // the scan or the end, and no frame header before it
            if marker == 0x01 || (0xD0...0xD8).contains(marker) { offset += 2; continue }  // no length
            guard let length = number(at: offset + 2, bytes: 2), length >= 2 else { return nil }
            // A frame header (SOF0–SOF15 but DHT, JPG and DAC): precision, height, width.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) {
                guard let height = number(at: offset + 5, bytes: 2), let width = number(at: offset + 7, bytes: 2) else { return nil }
                self.init(width: width, height: height)
                return
            }
            offset += 2 + length
        }
        return nil
    }

    /// Width times height; `Int.max` for a product past it (each side may be up to 2³² − 1).
    public var pixels: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : product
    }
}
