import DeckMedia
import DeckTestSupport
import Foundation
import Testing
@testable import DeckMPRIS

/// Artwork handed over as bytes reaches MPRIS clients as a file: one picture at a time, in a
/// private folder that goes at close.
@Suite struct ArtworkFileTests {
    let dir = TemporaryDirectory()
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 4, 5]

    func artwork(_ id: String, _ bytes: [UInt8]) throws -> Artwork { try Artwork(id: id, bytes: bytes, maxBytes: 1 << 20, maxPixels: 1 << 24) }

    /// The path a `file://` URL names.
    func path(_ url: String?) throws -> String {
        let url = try #require(url)
        #expect(url.hasPrefix("file://"))
        return try #require(String(url.dropFirst("file://".count)).removingPercentEncoding)
    }

    @Test func eachPictureIsWrittenOnceAndTheOneBeforeRemoved() throws {
        let capture = LogCapture()
        let file = ArtworkFile(base: dir.path + "/run time", logger: capture.logger)
        try FileManager.default.createDirectory(atPath: dir.path + "/run time", withIntermediateDirectories: true)
        let first = try artwork("art-1", jpeg)
        let url = file.url(for: first)
        #expect(url?.contains("/run%20time/deck-artwork-") == true && url?.hasSuffix("/art-1.jpg") == true, "\(url ?? "")")
        let written = try path(url)
        #expect(FileManager.default.contents(atPath: written) == Data(jpeg))
        unlink(written)
        #expect(file.url(for: first) == url, "asked again: not written again")
        #expect(!FileManager.default.fileExists(atPath: written))

        let second = try path(file.url(for: try artwork("art-2", png)))
        #expect(second.hasSuffix("/art-2.png") && FileManager.default.contents(atPath: second) == Data(png))
        let other = try path(file.url(for: try artwork("art-2", jpeg)))
        #expect(FileManager.default.contents(atPath: other) == Data(jpeg), "another center's art-2 is another picture")
        #expect(file.url(for: nil) == nil)
        #expect(!FileManager.default.fileExists(atPath: other), "no artwork: no file")
        let folder = (second as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        _ = file.url(for: first)
        file.close()
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(capture.all.isEmpty)
    }

    @Test func aFolderThatCannotBeMadeCostsTheArtworkAloneAndIsSaidOnce() throws {
        let capture = LogCapture()
        let file = ArtworkFile(base: dir.path + "/missing", logger: capture.logger)
        #expect(file.url(for: try artwork("art-1", jpeg)) == nil)
        #expect(file.url(for: try artwork("art-2", jpeg)) == nil)
        #expect(capture.messages(from: "mpris") == ["MPRIS clients get no artwork: cannot make a folder in \(dir.path)/missing: No such file or directory"])
    }
}
