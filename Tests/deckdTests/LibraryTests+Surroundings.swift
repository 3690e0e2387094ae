import DeckBase
import DeckTestSupport
import Foundation
import Testing

/// The Library and what is around it: media folders missing, unreadable, changed or mounted
/// while it runs, a play asked for before the first scan, a rootless container, damaged files.
extension LibraryTests {
    @Test func aMissingMediaFolderIsReportedAndTheRestPlays() throws {
        let car = try Car(folders: ["/nonexistent/music", LibraryTests.music])
        #expect(car.deckd.waitForLog("cannot read the folder /nonexistent/music: No such file or directory"), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        #expect(try car.deckd.deckctl(["status"]).status == 0)
        #expect(car.deckd.stop() == 0)
    }

    /// A music file the Library cannot open by its name (not UTF-8) or at all (a link to nothing,
    /// a FIFO, an empty file), and a folder it cannot open by its name, are reported, not passed
    /// over in silence.
    @Test func aNameThatIsNotUTF8ALinkToNothingAndAFIFOAreReportedNotPassedOver() throws {
        let media = TemporaryDirectory()
        let track = try Data(contentsOf: URL(fileURLWithPath: LibraryTests.music + "/Odd names/no tags at all.mp3"))
        try track.write(to: URL(fileURLWithPath: media.path + "/ok.mp3"))
        let raw = Array((media.path + "/bad").utf8CString.dropLast()) + [CChar(bitPattern: 0xFF)] + Array("name.mp3".utf8CString)
        let fd = open(raw, O_CREAT | O_WRONLY, 0o644)
        #expect(fd >= 0 && track.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == track.count)
        close(fd)
        let folder = Array((media.path + "/Caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + [0]  // "Café" in Latin-1
        #expect(mkdir(folder, 0o755) == 0)
        try track.write(to: URL(fileURLWithPath: media.path + "/inner.mp3"))
        #expect(rename(media.path + "/inner.mp3", Array(folder.dropLast()) + Array("/inner.mp3".utf8CString)) == 0)
        symlink(media.path + "/nowhere.flac", media.path + "/gone.flac")
        #expect(mkfifo(media.path + "/pipe.ogg", 0o644) == 0)
        #expect(FileManager.default.createFile(atPath: media.path + "/empty.flac", contents: Data()))
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 1 tracks (1 read, 0 unchanged)"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped \(media.path)/bad\u{FFFD}name.mp3: its name is not UTF-8 text"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped the folder \(media.path)/Caf\u{FFFD} and what it holds: its name is not UTF-8 text"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped \(media.path)/gone.flac: No such file or directory"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped \(media.path)/pipe.ogg: it is a FIFO, not a regular file: only files are played"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped \(media.path)/empty.flac: it is empty (0 bytes): a copy not made yet, or one that failed"), "\(car.deckd.log)")
        #expect(!car.deckd.log.contains("FFmpeg"), "an empty file is not handed to FFmpeg: \(car.deckd.log)")
        #expect(car.deckd.log.contains("; 5 problems"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A folder reached twice, through a link back up or as a media folder inside another, is read
    /// once, so no track shows twice; one nested deeper than the scan goes is reported.
    @Test func aFolderReachedTwiceIsReadOnceAndOneTooDeepIsReported() throws {
        let media = TemporaryDirectory()
        let track = try Data(contentsOf: URL(fileURLWithPath: LibraryTests.music + "/Odd names/no tags at all.mp3"))
        try FileManager.default.createDirectory(atPath: media.path + "/Artist/Album", withIntermediateDirectories: true)
        try track.write(to: URL(fileURLWithPath: media.path + "/one.mp3"))
        try track.write(to: URL(fileURLWithPath: media.path + "/Artist/two.mp3"))
        #expect(symlink("../..", media.path + "/Artist/Album/up") == 0)
        let cut = (0..<24).reduce(media.path + "/Artist") { path, _ in path + "/d" }  // 25 folders below media.path
        try FileManager.default.createDirectory(atPath: cut, withIntermediateDirectories: true)
        try track.write(to: URL(fileURLWithPath: cut + "/deep.mp3"))
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path, media.path + "/Artist"])
        #expect(car.deckd.waitForLog("library: 2 tracks (2 read, 0 unchanged)"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped the folder \(cut): it is more than 24 folders below its media folder"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("; 1 problems"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A folder of broken files logs the first 20 and counts the rest in the scan's summary, which
    /// the runtime's log budget would otherwise have suppressed.
    @Test func aFolderOfBrokenFilesLogsTheFirst20AndTheSummaryCountsTheRest() throws {
        let media = TemporaryDirectory()
        let track = try Data(contentsOf: URL(fileURLWithPath: LibraryTests.music + "/Odd names/no tags at all.mp3"))
        try track.write(to: URL(fileURLWithPath: media.path + "/ok.mp3"))
        for index in 0..<500 { #expect(FileManager.default.createFile(atPath: media.path + "/empty \(index).mp3", contents: Data())) }
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 1 tracks (1 read, 0 unchanged)"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("; 500 problems (480 new ones not logged: only the first 20 of a scan are)"), "\(car.deckd.log)")
        #expect(car.deckd.log.components(separatedBy: ": it is empty (0 bytes)").count - 1 == 20, "\(car.deckd.log)")
        #expect(!car.deckd.log.contains("lines suppressed"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// Tags and a path longer than the runtime takes (a row key of 256 bytes, a now-playing text or
    /// queue id of 1,024) are cut to fit: the screen and the queue still show, its album row plays,
    /// and the track's commands work.
    @Test func anAlbumAndATitleLongerThanTheRuntimeTakesStillShowPlayAndPause() throws {
        let media = TemporaryDirectory()
        let album = String(repeating: "交響曲", count: 40), title = String(repeating: "楽章", count: 200)  // 360 and 1,200 bytes
        // In folders 1,000 bytes deep: the path is its queue item's key, longer than the runtime takes.
        let deep = (0..<4).reduce(media.path) { path, _ in path + "/" + String(repeating: "d", count: 250) }
        try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=30",
                                               "-metadata", "album=\(album)", "-metadata", "title=\(title)", deep + "/long.flac"])
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: loudness measured for 1 tracks"), "\(car.deckd.log)")
        _ = try car.deckctl(["launch", "org.deck.library"])
        _ = try car.deckctl(["pause"])
        let shown = try car.waitFor("Albums · 1 track\n", in: ["ui", "org.deck.library"])
        let screen = try car.deckctl(["ui", "org.deck.library"])
        #expect(shown, "the screen follows the scan: \(screen)")
        let row = try #require(screen.split(separator: "\n").first { $0.contains("] 交響曲交響曲") }, "the album's row: \(screen)")
        _ = try car.deckctl(["select", String(row.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" })])
        #expect(try car.waitFor("playing", in: ["now-playing"]), "\(car.deckd.log)")
        let paused = try car.deckd.deckctl(["pause"])
        #expect(paused.status == 0, "the commands were published: \(paused.output)")
        let nowPlaying = try JSONValue.parse(try car.deckctl(["--json", "call", "nowPlaying.get"]))
        #expect(nowPlaying["title"]?.stringValue.map { $0.utf8.count <= 1_024 && $0.hasPrefix("楽章楽章") } == true, "\(nowPlaying.encoded())")
        #expect(!car.deckd.log.contains("the screen was refused") && !car.deckd.log.contains("not published"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A cover larger than the car takes (a 1.4 MB PNG) is shown made smaller, a JPEG of at most
    /// 512 KiB; one the runtime still refuses (`nowPlaying.maxArtworkBytes` at 1 KiB) costs the
    /// picture only: the title, queue and commands are published, and the refusal is logged once.
    @Test func aLargeCoverIsShownSmallerAndOneStillRefusedCostsOnlyThePicture() throws {
        let media = TemporaryDirectory()
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "nullsrc=s=1000x1000,geq=random(1)*255:128:128",
                                               "-frames:v", "1", media.path + "/cover.png"])
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=30",
                                               "-i", media.path + "/cover.png", "-map", "0", "-map", "1", "-c:a", "flac", "-c:v", "copy",
                                               "-disposition:v", "attached_pic", "-metadata", "title=Big cover", media.path + "/big.flac"])
        try FileManager.default.removeItem(atPath: media.path + "/cover.png")
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        for limit in [nil, 1_024] {
            let car = try Car(folders: [media.path], config: limit.map { #""nowPlaying": {"maxArtworkBytes": \#($0)}"# } ?? "")
            #expect(car.deckd.waitForLog("library: 1 tracks"), "\(car.deckd.log)")
            _ = try car.deckctl(["launch", "org.deck.library"])
            #expect(try car.waitFor("playing", in: ["now-playing"]), "\(car.deckd.log)")
            #expect(try car.deckd.deckctl(["pause"]).status == 0, "the commands were published")
            #expect(try car.deckd.deckctl(["play"]).status == 0)
            #expect(try car.waitFor("playing", in: ["now-playing"]), "\(car.deckd.log)")
            var nowPlaying = try JSONValue.parse(try car.deckctl(["--json", "call", "nowPlaying.get"]))
            // The cover comes with the opened file, made smaller on the decoding thread: on a busy
            // machine after playback has started.
            let deadline = Date().addingTimeInterval(10)
            while limit == nil, nowPlaying["artwork"] == .null, Date() < deadline {
                usleep(50_000)
                nowPlaying = try JSONValue.parse(try car.deckctl(["--json", "call", "nowPlaying.get"]))
            }
            #expect(nowPlaying["title"]?.stringValue == "Big cover" && nowPlaying["queueCount"]?.intValue == 1, "\(nowPlaying.encoded())")
            #expect(!car.deckd.log.contains("not published"), "\(car.deckd.log)")
            let refused = "now playing shows no picture: set_info: artwork of "
            if limit != nil { car.deckd.waitForLog(refused) }  // the refusal follows the cover, as its showing does
            let refusals = car.deckd.log.components(separatedBy: refused).count - 1
            if limit == nil {
                let artwork = nowPlaying["artwork"]
                #expect(artwork?["mimeType"]?.stringValue == "image/jpeg", "\(nowPlaying.encoded())")
                #expect((artwork?["bytes"]?.intValue ?? 0) > 0 && (artwork?["bytes"]?.intValue ?? .max) <= 512 << 10, "\(nowPlaying.encoded())")
                #expect(refusals == 0, "\(car.deckd.log)")
            } else {
                #expect(nowPlaying["artwork"] == .null, "\(nowPlaying.encoded())")
                #expect(refusals == 1, "\(car.deckd.log)")
            }
            #expect(car.deckd.stop() == 0)
        }
    }

    /// A track without a cover of its own shows its folder's (`Cover.JPG` here, in any case); one
    /// with its own keeps it, whatever lies beside it.
    /// A track's own cover shows, made a JPEG when it is a GIF; without one, its folder's, past an
    /// empty `cover.jpg`.
    @Test func aTrackWithoutACoverShowsItsFoldersCover() throws {
        let media = TemporaryDirectory()
        for folder in ["Bare", "Own", "Gif", "Empty"] { try FileManager.default.createDirectory(atPath: media.path + "/" + folder, withIntermediateDirectories: true) }
        func picture(_ path: String) throws {
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "testsrc=s=64x64", "-frames:v", "1", "-f", "image2", path])
        }
        try picture(media.path + "/Bare/Cover.JPG")
        try picture(media.path + "/Own/folder.jpg")
        try picture(media.path + "/own.png")
        try picture(media.path + "/own.gif")
        try picture(media.path + "/Empty/folder.png")
        try #require(FileManager.default.createFile(atPath: media.path + "/Empty/cover.jpg", contents: Data()))
        func track(_ name: String, cover: String? = nil, to path: String) throws {
            let picture = cover.map { ["-i", media.path + "/" + $0, "-map", "0", "-map", "1", "-c:v", "copy", "-disposition:v", "attached_pic"] } ?? []
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=30"] + picture
                               + ["-metadata", "title=\(name) track", "-metadata", "album=\(name)", media.path + "/" + path])
        }
        try track("Bare", to: "Bare/bare.flac")
        try track("Own", cover: "own.png", to: "Own/own.flac")
        try track("Gif", cover: "own.gif", to: "Gif/gif.mp3")
        try track("Empty", to: "Empty/empty.flac")
        try FileManager.default.removeItem(atPath: media.path + "/own.png")
        try FileManager.default.removeItem(atPath: media.path + "/own.gif")
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 4 tracks"), "\(car.deckd.log)")
        for (track, mimeType) in [("Bare/bare.flac", "image/jpeg"), ("Own/own.flac", "image/png"), ("Gif/gif.mp3", "image/jpeg"),
                                  ("Empty/empty.flac", "image/png")] {
            _ = try car.deckctl(["launch", "org.deck.library", media.path + "/" + track])
            #expect(try car.waitFor(track.split(separator: "/")[0] + " track", in: ["now-playing"]), "\(car.deckd.log)")
            var artwork: JSONValue?
            let deadline = Date().addingTimeInterval(5)
            repeat {
                artwork = try JSONValue.parse(try car.deckctl(["--json", "call", "nowPlaying.get"]))["artwork"]
                if artwork?["mimeType"]?.stringValue == mimeType { break }  // the track before's may show until then
                usleep(100_000)
            } while Date() < deadline
            #expect(artwork?["mimeType"]?.stringValue == mimeType, "\(track): \(artwork?.encoded() ?? "none")")
        }
        #expect(car.deckd.stop() == 0)
    }

    /// A saved index holding what no scan writes (an empty title, a year below 1, a duration below
    /// zero) is not trusted: those tracks are read again from their files.
    @Test func aDamagedIndexEntryIsReadAgainFromItsFile() throws {
        let dir = TemporaryDirectory(), media = TemporaryDirectory()
        for name in ["a", "b"] {
            _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=0.2",
                                                   "-metadata", "title=Song \(name)", "-metadata", "date=2001", media.path + "/\(name).flac"])
        }
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        var car: Car? = try Car(dir: dir, folders: [media.path])
        #expect(car!.deckd.waitForLog("library: loudness measured for 2 tracks"), "\(car!.deckd.log)")
        #expect(car!.deckd.stop() == 0)
        car = nil
        let index = dir.path + "/data/org.deck.library/library.json"
        var tracks = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: index))) as? [[String: Any]])
        let damaged = try #require(tracks.firstIndex { $0["title"] as? String == "Song a" })
        tracks[damaged]["title"] = ""
        tracks[damaged]["year"] = -5
        tracks[damaged]["duration"] = -1e300
        try JSONSerialization.data(withJSONObject: tracks).write(to: URL(fileURLWithPath: index))
        car = try Car(dir: dir, folders: [media.path], output: "second.opus")
        #expect(car!.deckd.waitForLog("library: 2 tracks (1 read, 1 unchanged)"), "\(car!.deckd.log)")
        let albums = try car!.deckctl(["ui", "org.deck.library"])
        #expect(albums.contains("Unknown Artist · 2001") && !albums.contains("· -5"), "\(albums)")
        #expect(car!.deckd.stop() == 0)
    }

    /// A folder or a track asked for by a path spelt another way (with the slash a shell's
    /// completion leaves, `./`, `//`, `..`) plays as the scan's; so does the media folder itself.
    @Test func aPathSpeltAnotherWayIsTheScansOne() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        let launched = try car.deckd.deckctl(["launch", "org.deck.library", "folder:\(LibraryTests.music)/Quiet Band/Quiet Album//"])
        #expect(launched.status == 0, "\(launched.output)")
        #expect(try car.waitFor("Quiet Album 1", in: ["now-playing"]))
        let whole = try car.deckd.deckctl(["launch", "org.deck.library", "folder:\(LibraryTests.music)/"])  // the media folder itself
        #expect(whole.status == 0, "\(whole.output)")
        let track = "\(LibraryTests.music)/./Loud Band//Quiet Band/../Loud Album/01 Track 1.flac"
        let played = try car.deckd.deckctl(["launch", "org.deck.library", track])
        #expect(played.status == 0, "\(played.output)")
        #expect(try car.waitFor("Loud Album 1", in: ["now-playing"]))
        #expect(car.deckd.stop() == 0)
    }

    /// A queue over the integrator's `nowPlaying.maxQueueItems` is refused on its own: the track
    /// and the commands are still published, so the driver can pause.
    @Test func aQueueOverTheIntegratorsLimitLeavesTheCommandsWorking() throws {
        let car = try Car(config: #""nowPlaying": {"maxQueueItems": 3}"#)
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        _ = try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"])
        #expect(car.deckd.waitForLog("the queue not published: "), "\(car.deckd.log)")
        #expect(try car.waitFor("Loud Album 1", in: ["now-playing"]))
        let paused = try car.deckd.deckctl(["pause"])
        #expect(paused.status == 0, "\(paused.output)")
        #expect(try car.waitFor("paused", in: ["now-playing"]))
        #expect(car.deckd.stop() == 0)
    }

    /// The Library follows its folders while it runs, reading only what changed (a broken file
    /// is skipped once, not at every scan): an album copied in shows without a restart, one
    /// removed goes, and a filesystem mounted in a media folder (a USB stick; here a bind mount)
    /// is scanned when it comes and dropped when it goes.
    @Test func albumsCopiedInRemovedOrMountedWhileItRunsAreScannedAgain() throws {
        let media = TemporaryDirectory(), stick = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Quiet Band", toPath: media.path + "/Quiet Band")
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Dynamics", toPath: stick.path + "/Dynamics")
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Broken/not audio.mp3", toPath: media.path + "/not audio.mp3")
        try FileManager.default.createDirectory(atPath: media.path + "/stick", withIntermediateDirectories: false)
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path, stick.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("library: 6 tracks (6 read, 0 unchanged)"), "\(car.deckd.log)")

        _ = try runProgram("/bin/cp", ["-r", LibraryTests.music + "/Loud Band", media.path + "/"])
        #expect(car.deckd.waitForLog("library: 12 tracks (6 read, 6 unchanged)"), "\(car.deckd.log)")
        #expect(try car.waitFor("Loud Band — 1 album", in: ["ui", "org.deck.library"]))
        try FileManager.default.removeItem(atPath: media.path + "/Quiet Band")
        #expect(car.deckd.waitForLog("library: 6 tracks (0 read, 6 unchanged)"), "\(car.deckd.log)")
        #expect(!(try car.output(of: ["ui", "org.deck.library"]) { !$0.contains("Quiet Band") }.contains("Quiet Band")))
        // Skipped once: no file was read before it was whole, and the broken one, unchanged, was not tried again.
        #expect(car.deckd.log.components(separatedBy: "skipped").count == 2, "\(car.deckd.log)")

        guard geteuid() == 0 else { return #expect(car.deckd.stop() == 0) }  // mounting takes root
        #expect(try runProgram("/bin/mount", ["--bind", stick.path, media.path + "/stick"]).status == 0)
        defer { _ = try? runProgram("/bin/umount", ["--lazy", media.path + "/stick"]) }
        #expect(car.deckd.waitForLog("library: 7 tracks (1 read, 6 unchanged)"), "\(car.deckd.log)")
        #expect(try car.deckctl(["launch", "org.deck.library", "\(media.path)/stick/Dynamics/loud then quiet.flac"]).contains("active"))
        #expect(try car.waitFor("Loud then quiet — Dynamics", in: ["now-playing"]))
        // Lazily, as a stick pulled out while one of its files plays would be.
        #expect(try runProgram("/bin/umount", ["--lazy", media.path + "/stick"]).status == 0)
        #expect(car.deckd.waitForLog("library: 6 tracks (0 read, 6 unchanged)", times: 2), "\(car.deckd.log)")
        // Gone from the library, still where the driver left it in the queue.
        let albums = try car.output(of: ["select", "/1"]) { $0.contains("[/1/0] Loud Album") && !$0.contains("[/1/1]") }
        #expect(albums.contains("[/1/0] Loud Album") && !albums.contains("[/1/1]"), "\(albums)")
        #expect(try car.deckctl(["queue"]).contains("Loud then quiet"))
        #expect(try car.waitFor("6 tracks", in: ["ui", "org.deck.library"]))
        #expect(car.deckd.stop() == 0)
    }

    /// `deckd --play` on a first start: the track plays once the first scan finds it, and one it
    /// never finds is reported, the focus and the stream it held given back.
    @Test func aTrackAskedForBeforeTheFirstScanFindsItPlaysWhenItDoes() throws {
        let track = LibraryTests.music + "/Loud Band/Loud Album/01 Track 1.flac"
        let car = try Car(options: ["--play", "org.deck.library:" + track])
        #expect(car.deckd.log.contains("org.deck.library: waits for the scan to find \(track)"), "\(car.deckd.log)")
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]))
        #expect(try car.deckctl(["session"]).contains("org.deck.library  music  gain  playing"))
        #expect(car.deckd.stop() == 0)

        let missing = LibraryTests.music + "/Loud Band/Loud Album/99 Not There.flac"
        let other = try Car(options: ["--play", "org.deck.library:" + missing])
        #expect(other.deckd.waitForLog("org.deck.library: cannot play \(missing): no track \(missing) in the library"), "\(other.deckd.log)")
        #expect(other.deckd.waitForLog("session: org.deck.library abandoned focus"), "\(other.deckd.log)")
        #expect(other.deckd.stop() == 0)
    }

    /// Pause, toggle or stop pressed while a track waits for the first scan to find it calls it
    /// off: the scan's end does not start it, and the silent stream and the focus held for it go.
    /// 2,000 links to one short track, scanned first, keep the first scan going meanwhile.
    @Test(arguments: ["pause", "toggle", "stop"]) func aPauseCallsOffATrackWaitingForTheFirstScan(press: String) throws {
        let links = TemporaryDirectory()
        let short = LibraryTests.music + "/Quiet Band/Quiet Album/04 Track 4.ogg"
        for index in 0..<2_000 {
            try FileManager.default.createSymbolicLink(atPath: links.path + "/\(index).ogg", withDestinationPath: short)
        }
        _ = try runProgram("/bin/chmod", ["o+rx", links.path])
        let track = LibraryTests.music + "/Loud Band/Loud Album/01 Track 1.flac"
        let car = try Car(folders: [links.path, LibraryTests.music], options: ["--play", "org.deck.library:" + track])
        #expect(car.deckd.waitForLog("org.deck.library: waits for the scan to find \(track)"), "\(car.deckd.log)")
        let answer = try car.deckd.deckctl([press])
        #expect(answer.status == 0, "a track waiting for the scan is something to \(press): \(answer.output)")
        #expect(!car.deckd.log.contains("library: 2015 tracks"), "paused while the first scan ran")
        #expect(car.deckd.waitForLog("library: 2015 tracks"), "\(car.deckd.log)")
        usleep(300_000)
        #expect(try !car.deckctl(["session"]).contains("org.deck.library"), "the focus it held went")
        #expect(try car.deckctl(["now-playing", "--format", "{{status}}"]) != "playing\n")
        #expect(car.deckd.stop() == 0)
    }

    /// In a rootless container (here a user namespace that maps only root) hosts keep deckd's
    /// uid instead of failing to start; with inotify's watches used up (the namespace's
    /// `max_inotify_watches` at 4) the Library still scans, and says once what it cannot follow.
    @Test func inAUserNamespaceWithFewWatchesTheLibraryScansAndSaysOnceWhatItCannotFollow() throws {
        let launcher = ["/usr/bin/unshare", "--user", "--map-root-user", "/bin/sh", "-c",
                        #"echo 4 > /proc/sys/user/max_inotify_watches && exec "$@""#, "sh"]
        let car = try Car(launcher: launcher)
        #expect(car.deckd.waitForLog("library: 15 tracks (15 read, 0 unchanged)"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("sandbox: root's uid (the uids from uidBase are not mapped in this user namespace)"), "\(car.deckd.log)")
        #expect(!car.deckd.log.contains("zygote went away") && !car.deckd.log.contains("cannot give"), "\(car.deckd.log)")
        let warnings = car.deckd.log.components(separatedBy: "\n").filter { $0.contains("org.deck.library: cannot watch") }
        #expect(warnings.count == 1 && warnings[0].hasSuffix("what changes there shows at the next start"), "\(car.deckd.log)")
        #expect(try car.deckctl(["launch", "org.deck.library", LibraryTests.music + "/Loud Band/Loud Album/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]))
        #expect(car.deckd.stop() == 0)
    }

    /// FFmpeg's errors reach the log as the Library's (its host's stderr is /dev/null), naming the
    /// file, at most 20 a minute: a damaged MP3, 40 stretches of noise, decoded as its loudness is measured.
    @Test func ffmpegsErrorsOnADamagedFileAreLoggedAsTheLibrarysTwentyAMinute() throws {
        let media = TemporaryDirectory()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: LibraryTests.music + "/Loud Band/Loud Album/02 Track 2.mp3")))
        var noise: UInt32 = 7
        for stretch in 0..<40 {
            let start = 2_000 + stretch * (bytes.count - 4_000) / 40
            for index in start..<(start + 500) {
                noise = noise &* 1_103_515_245 &+ 12_345
                bytes[index] = UInt8(truncatingIfNeeded: noise >> 16)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: media.path + "/damaged.mp3"))
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", media.path])
        let car = try Car(folders: [media.path])
        #expect(car.deckd.waitForLog("org.deck.library: FFmpeg: 20 errors this minute; the rest of the minute's are not shown"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("org.deck.library: FFmpeg mp3float (\(media.path)/damaged.mp3): Header missing"), "\(car.deckd.log)")
        #expect(car.deckd.log.components(separatedBy: "org.deck.library: FFmpeg ").count - 1 == 20, "\(car.deckd.log)")
        #expect(!car.deckd.log.contains(" @ 0x"), "no line of FFmpeg's own")
        #expect(car.deckd.stop() == 0)
    }

    @Test func anUnreadableFolderIsReportedAndTheRestPlays() throws {
        let extra = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Dynamics", toPath: extra.path + "/Open")
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Dynamics", toPath: extra.path + "/Locked")
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", extra.path])
        chmod(extra.path + "/Locked", 0)
        defer { chmod(extra.path + "/Locked", 0o755) }
        let car = try Car(folders: [LibraryTests.music, extra.path])
        #expect(car.deckd.waitForLog("cannot read the folder \(extra.path)/Locked: Permission denied"), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("library: 16 tracks"), "the readable folder beside it is scanned: \(car.deckd.log)")
        #expect(try car.deckctl(["launch", "org.deck.library", "\(extra.path)/Open/loud then quiet.flac"]).contains("active"))
        #expect(try car.waitFor("Loud then quiet — Dynamics", in: ["now-playing"]))
        #expect(car.deckd.stop() == 0)
    }
}
