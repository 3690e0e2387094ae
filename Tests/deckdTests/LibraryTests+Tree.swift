import DeckTestSupport
import Foundation
import Testing

/// The Library's browse tree as its tags and names make it.
extension LibraryTests {
    /// Names are listed as people read them: "Album 2" before "Album 10", "Track 9" before "Track 10".
    @Test func numberedNamesAreListedInTheirNumbersOrder() throws {
        let media = TemporaryDirectory()
        for (name, album) in [("Track 10", "Album 10"), ("Track 9", "Album 2"), ("track 1", "album 1")] {
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.2",
                                                   "-metadata", "album=\(album)", media.path + "/\(name).flac"])
        }
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 3 tracks"), "\(car.deckd.log)")
        _ = try car.deckctl(["launch", "org.deck.library"])
        func order(_ path: String, _ names: [String]) throws {
            let level = try car.deckctl(["select", path])
            let at = names.map { level.range(of: "] \($0) — ")?.lowerBound }
            #expect(at.allSatisfy { $0 != nil } && at.compactMap { $0 } == at.compactMap { $0 }.sorted(), "\(level)")
        }
        try order("/1", ["album 1", "Album 2", "Album 10"])
        try order("/3", ["track 1", "Track 9", "Track 10"])
        #expect(car.deckd.stop() == 0)
    }

    /// An album, artist or genre given as a person types it (any case, `-` for the album's dash)
    /// plays when it names one; one that names none is refused saying how an album is named.
    @Test func anAlbumTypedInAnyCaseWithAHyphenPlays() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"), "\(car.deckd.log)")
        #expect(try car.deckd.deckctl(["launch", "org.deck.library", "album:quiet band - quiet album"]).status == 0, "\(car.deckd.log)")
        #expect(try car.waitFor("Quiet Album 1 — Quiet Band", in: ["now-playing"]), "\(car.deckd.log)")
        #expect(try car.deckd.deckctl(["launch", "org.deck.library", "artist:LOUD BAND"]).status == 0)
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]), "\(car.deckd.log)")
        let none = try car.deckd.deckctl(["launch", "org.deck.library", "album:Nobody - Nothing"])
        #expect(none.status == 1 && none.output.contains("no album:Nobody - Nothing in the library (album:ARTIST – ALBUM, as the Albums tab names it)"),
                "\(none.output)")
        #expect(car.deckd.stop() == 0)
    }

    /// An album marked a compilation, in FLAC, MP3 and M4A, is one album under Various Artists,
    /// not one per track's artist; an album artist, where named, still wins.
    @Test func aCompilationIsOneAlbumUnderVariousArtists() throws {
        let media = TemporaryDirectory()
        for (number, artist, format) in [(1, "Ann", "flac"), (2, "Bob", "mp3"), (3, "Cy", "m4a")] {
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.2",
                                                   "-metadata", "album=Hits", "-metadata", "artist=\(artist)", "-metadata", "track=\(number)",
                                                   "-metadata", "title=Song \(number)", "-metadata", "compilation=1", media.path + "/\(number).\(format)"])
        }
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.2", "-metadata", "album=Mix",
                                               "-metadata", "artist=Dee", "-metadata", "album_artist=DJ Dee", "-metadata", "compilation=1", media.path + "/4.flac"])
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 4 tracks"), "\(car.deckd.log)")
        _ = try car.deckctl(["launch", "org.deck.library"])
        let albums = try car.deckctl(["select", "/1"])
        #expect(albums.contains("] Hits — Various Artists") && albums.contains("] Mix — DJ Dee") && !albums.contains("] Hits — Ann"), "\(albums)")
        let hits = try car.deckctl(["select", "/1/0"])
        #expect(["Song 1 — Ann", "Song 2 — Bob", "Song 3 — Cy"].allSatisfy(hits.contains), "\(hits)")
        #expect(car.deckd.stop() == 0)
    }

    /// Files that name no album artist (nor a compilation), as many rips are: a folder's album by
    /// several artists is one album, under the artist of most of its tracks, else Various Artists;
    /// an album of the same name in another folder stays apart.
    @Test func aFoldersAlbumBySeveralArtistsIsOneAlbum() throws {
        let media = TemporaryDirectory()
        let files: [(folder: String, album: String, artist: String)] = [
            ("Film", "Film", "Ann"), ("Film", "Film", "Bob"), ("Film", "Film", "Cy"),
            ("Best", "Best", "Dee"), ("Best", "Best", "Dee"), ("Best", "Best", "Dee feat. Eve"),
            ("Other", "Best", "Fay"),
        ]
        for (number, file) in files.enumerated() {
            try FileManager.default.createDirectory(atPath: media.path + "/" + file.folder, withIntermediateDirectories: true)
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.2",
                                                   "-metadata", "album=\(file.album)", "-metadata", "artist=\(file.artist)", "-metadata", "track=\(number + 1)",
                                                   "-metadata", "title=Song \(number + 1)", media.path + "/\(file.folder)/\(number + 1).flac"])
        }
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 7 tracks"), "\(car.deckd.log)")
        _ = try car.deckctl(["launch", "org.deck.library"])
        let albums = try car.deckctl(["select", "/1"])
        let rows = albums.split(separator: "\n").filter { $0.contains("] Best") || $0.contains("] Film") }
            .map { $0.split(separator: "] ").last!.replacingOccurrences(of: " ›", with: "") }
        #expect(Set(rows) == ["Best — Dee", "Best — Fay", "Film — Various Artists"], "\(albums)")
        let artists = try car.deckctl(["select", "/0"])
        #expect(!artists.contains("Dee feat. Eve") && !artists.contains("] Ann"), "\(artists)")
        #expect(car.deckd.stop() == 0)
    }
}
