import DeckTestSupport
import Foundation
import MediaPlayback
import Testing

/// Covers made to fit a car: large ones smaller, as JPEG, checked by ffprobe.
@Suite struct CoverImageTests {
    let dir = TemporaryDirectory()

    /// A PNG of noise (which compresses badly: 1000 pixels a side make 1.4 MB), `width` by `height`.
    private func noise(_ width: Int, _ height: Int, format: String = "png") throws -> [UInt8] {
        let path = dir.path + "/noise-\(width)x\(height).\(format)"
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "nullsrc=s=\(width)x\(height),geq=random(1)*255:128:128",
                                               "-frames:v", "1"] + (format == "jpg" ? ["-q:v", "1"] : []) + [path])
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// ffprobe's width and height of `bytes`, and its codec.
    private func probe(_ bytes: [UInt8]) throws -> String {
        let path = dir.path + "/probed"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try runProgram("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aLargeCoverIsMadeASmallerJPEGOfTheSameShape() throws {
        let square = try noise(1000, 1000)
        #expect(square.count > CoverImage.maxBytes)
        let fitted = try #require(CoverImage.fitted(square))
        #expect(fitted.count <= CoverImage.maxBytes && fitted.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(try probe(fitted) == "mjpeg,600,600")

        let wide = try #require(CoverImage.fitted(try noise(1600, 800, format: "jpg")))
        #expect(try probe(wide) == "mjpeg,600,300")
    }

    /// A picture of one colour is few bytes at any size; past 1,200 pixels a side it is made
    /// smaller all the same, so the screen is not handed 12 million pixels to draw.
    @Test(arguments: ["png", "jpg"])
    func aCoverOfManyPixelsIsMadeSmallerHoweverFewItsBytes(format: String) throws {
        let path = dir.path + "/plain.\(format)"
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=gray:s=4000x3000", "-frames:v", "1", path])
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(plain.count <= CoverImage.maxBytes)
        #expect(try probe(try #require(CoverImage.fitted(plain))) == "mjpeg,600,450")
    }

    @Test func aSmallCoverIsLeftAsItIs() throws {
        let small = try noise(200, 200)
        #expect(small.count <= CoverImage.maxBytes)
        #expect(CoverImage.fitted(small) == small)
    }

    /// Whatever the decoders give (RGB, RGBA opaque or partly clear, a palette, 16-bit grey, 1-bit, JPEG's 4:4:4, 4:2:2 and
    /// grey: the fuzz corpus's seeds), the picture comes out a JPEG.
    @Test func eachPixelFormatIsMadeAJPEG() throws {
        let folder = Paths.repoRoot + "/Tests/Fuzz/corpus/cover"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("seed-") {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            let fitted = try #require(CoverImage.fitted(bytes, over: 0), "\(name)")
            #expect(try probe(fitted) == "mjpeg,12,10", "\(name)")
        }
    }

    /// A picture ffmpeg draws with `filter`, as PNG.
    private func drawn(_ filter: String, name: String, format: String = "png") throws -> [UInt8] {
        let path = dir.path + "/\(name).\(format)"
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", filter, "-frames:v", "1", path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `picture`'s pixels as ffmpeg decodes them, RGBA row by row.
    private func rgba(_ picture: [UInt8]) throws -> [UInt8] {
        let path = dir.path + "/decoded"
        try Data(picture).write(to: URL(fileURLWithPath: path))
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba", path + ".rgba"])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".rgba")))
    }

    /// A phone's photo is stored as the camera was held and its EXIF says how to turn it: made
    /// smaller, it is turned already (the JPEG made carries no EXIF), as a viewer would show it.
    @Test(arguments: [(1, 600, 300, "red|blue"), (3, 600, 300, "blue|red"), (6, 300, 600, "red/blue"), (8, 300, 600, "blue/red")])
    func aPhotoIsTurnedAsItsEXIFSays(orientation: UInt8, width: Int, height: Int, layout: String) throws {
        let stored = try drawn("color=red:s=800x800[a];color=blue:s=800x800[b];[a][b]hstack", name: "red-blue", format: "jpg")
        let tiff: [UInt8] = Array("MM".utf8) + [0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let exif = Array("Exif".utf8) + [0, 0] + tiff
        let photo = Array(stored[..<2]) + [0xFF, 0xE1, 0, UInt8(exif.count + 2)] + exif + Array(stored[2...])
        let fitted = try #require(CoverImage.fitted(photo))
        #expect(try probe(fitted) == "mjpeg,\(width),\(height)")
        let pixels = try rgba(fitted)
        try #require(pixels.count == width * height * 4)
        func colour(_ x: Int, _ y: Int) -> String {
            let at = (y * width + x) * 4
            return pixels[at] > 200 && pixels[at + 2] < 60 ? "red" : pixels[at + 2] > 200 && pixels[at] < 60 ? "blue" : "\(pixels[at..<(at + 3)])"
        }
        let seen = layout.contains("|") ? "\(colour(width / 4, height / 2))|\(colour(width * 3 / 4, height / 2))"
                                        : "\(colour(width / 2, height / 4))/\(colour(width / 2, height * 3 / 4))"
        #expect(seen == layout, "orientation \(orientation)")
    }

    /// A transparent cover (its own alpha, or a palette's) stays a PNG with its clear parts clear:
    /// as a JPEG they would be black. One whose alpha is all opaque, as many PNGs are, is a JPEG.
    @Test func aTransparentCoverStaysAPNGAndKeepsItsClearParts() throws {
        let box = "color=s=1600x1600:d=0.04,format=rgba,geq=r=255:g=0:b=0:a='255*between(X,400,1199)*between(Y,400,1199)'"
        let palette = box + ",split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse=alpha_threshold=128"
        for (name, filter) in [("rgba", box), ("palette", palette)] {
            let fitted = try #require(CoverImage.fitted(try drawn(filter, name: name)), "\(name)")
            #expect(try probe(fitted) == "png,600,600", "\(name)")
            let pixels = try rgba(fitted)
            try #require(pixels.count == 600 * 600 * 4, "\(name)")
            #expect(pixels[3] == 0, "\(name): the corner is clear")
            let centre = (300 * 600 + 300) * 4
            #expect(pixels[centre] >= 250 && pixels[centre + 1] <= 5 && pixels[centre + 2] <= 5 && pixels[centre + 3] == 255,
                    "\(name): the box is opaque red, not \(pixels[centre..<(centre + 4)])")
        }
        let opaque = try drawn("color=c=blue:s=1600x1600:d=0.04,format=rgba", name: "opaque")
        #expect(try probe(try #require(CoverImage.fitted(opaque))) == "mjpeg,600,600")
    }

    /// An album's tracks carry one cover: it is made smaller once while it comes back track after
    /// track, and a cover that needs nothing done costs the cache nothing.
    @Test func theSameLargeCoverIsMadeSmallerOnce() throws {
        let album = try TestPicture.drawn(4000, 3000, format: "png", in: dir.path)
        let next = try TestPicture.drawn(3000, 3000, format: "jpg", in: dir.path)
        let small = try TestPicture.drawn(200, 200, format: "png", in: dir.path)
        var cache = CoverImage.Cache()
        let first = cache.fitted(album)
        let fitted = try #require(first)
        #expect(try probe(fitted) == "mjpeg,600,450")
        let again = (0..<10).map { _ in cache.fitted(album) }
        #expect(again.allSatisfy { $0 == fitted } && cache.fittings == 1)
        let unchanged = cache.fitted(small)
        #expect(unchanged == small && cache.fittings == 1)
        let stillLast = cache.fitted(album)
        #expect(stillLast == fitted && cache.fittings == 1, "still the last made smaller")
        let other = cache.fitted(next)
        #expect(try probe(try #require(other)) == "mjpeg,600,600")
        _ = cache.fitted(album)
        #expect(cache.fittings == 3, "only the last one is kept")
    }

    /// Tags and folders hold GIF, BMP, WebP and TIFF covers too, which a head unit need not draw:
    /// each is made a JPEG.
    @Test(arguments: ["gif", "bmp", "webp", "tiff"])
    func aCoverInAnotherFormatIsMadeAJPEG(format: String) throws {
        let picture = try TestPicture.drawn(40, 30, format: format, in: dir.path)
        #expect(try probe(try #require(CoverImage.fitted(picture))) == "mjpeg,40,30")
    }

    /// An empty `cover.jpg` (a download that failed) gives way to the next name that holds a picture.
    @Test func aFolderCoverThatHoldsNoPictureGivesWayToTheNext() throws {
        let album = dir.path + "/album"
        try FileManager.default.createDirectory(atPath: album, withIntermediateDirectories: true)
        try #require(FileManager.default.createFile(atPath: album + "/cover.jpg", contents: Data()))
        let folder = try TestPicture.drawn(40, 30, format: "png", in: album)
        try FileManager.default.moveItem(atPath: album + "/grey-40x30.png", toPath: album + "/Folder.png")
        #expect(CoverImage.beside(album + "/01 track.flac") == folder)
        try FileManager.default.removeItem(atPath: album + "/Folder.png")
        #expect(CoverImage.beside(album + "/01 track.flac") == nil)
    }

    @Test func whatIsNoPictureIsNotACover() {
        #expect(CoverImage.fitted([UInt8](repeating: 7, count: 600_000)) == nil)
        #expect(CoverImage.fitted([0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 0, count: 600_000)) == nil, "a PNG's signature and no PNG")
    }
}
