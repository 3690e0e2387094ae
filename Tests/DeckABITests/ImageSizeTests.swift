import DeckABI
import DeckTestSupport
import Foundation
import Testing

/// A picture's size read from its header alone, as ffmpeg wrote it, and nothing read past the bytes.
@Suite struct ImageSizeTests {
    let dir = TemporaryDirectory()

    @Test(arguments: [("png", [String]()), ("jpg", []), ("jpg", ["-pix_fmt", "yuvj444p"]), ("jpg", ["-pix_fmt", "gray"])])
    func theHeaderGivesThePicturesSize(format: String, arguments: [String]) throws {
        let picture = try TestPicture.drawn(322, 124, format: format, in: dir.path, arguments: arguments)
        #expect(ImageSize(header: picture) == ImageSize(width: 322, height: 124))
    }

    @Test func aHeaderCutShortOrNoPictureGivesNoSize() throws {
        let png = try TestPicture.drawn(64, 48, format: "png", in: dir.path)
        let jpeg = try TestPicture.drawn(64, 48, format: "jpg", in: dir.path)
        let frameHeader = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        for cut in [Array(png.prefix(23)), Array(jpeg.prefix(frameHeader + 7)), Array("GIF89a".utf8), [0xFF, 0xD8, 0x00], []] {
            #expect(ImageSize(header: cut) == nil, "\(cut.count) bytes")
        }
        #expect(ImageSize(header: Array(jpeg.prefix(frameHeader + 9))) == ImageSize(width: 64, height: 48))
    }

    /// A decoder skips stray bytes before a marker, so a header behind them still counts: a
    /// picture of many pixels is not let through by one byte put before its frame header.
    @Test func strayBytesBeforeTheFrameHeaderDoNotHideIt() throws {
        let jpeg = try TestPicture.drawn(64, 48, format: "jpg", in: dir.path)
        let frameHeader = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        var padded = jpeg
        padded.insert(contentsOf: [0x00, 0x17, 0x42], at: frameHeader)
        #expect(ImageSize(header: padded) == ImageSize(width: 64, height: 48))
        // ffmpeg reads it too, at that size.
        let path = dir.path + "/padded.jpg"
        try Data(padded).write(to: URL(fileURLWithPath: path))
        let probed = try runProgram("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        #expect(probed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "64,48")
        // A scan before any frame header ends the search: what follows is entropy-coded data.
        let scan = try #require((2..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        #expect(ImageSize(header: Array(jpeg[..<frameHeader]) + Array(jpeg[scan...])) == nil)
    }

    @Test func theLargestClaimHasNoProductThatOverflows() {
        let size = ImageSize(header: TestPicture.pngHeader(width: .max, height: .max))
        #expect(size == ImageSize(width: Int(UInt32.max), height: Int(UInt32.max)))
        #expect(size?.pixels == .max)
        #expect(ImageSize(header: TestPicture.pngHeader(width: 20_000, height: 3))?.pixels == 60_000)
    }
}
