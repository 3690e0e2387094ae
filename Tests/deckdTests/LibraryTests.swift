import DeckBase
import DeckTestSupport
import Foundation
import Synchronization
import Testing

/// The Library app (Plugins/Library) on a library made by ffmpeg at test time
/// (Tests/Fixtures/make-library.sh): the scan, the browse tree, playback with its commands, resume.
/// Its loudness (LibraryLoudnessTests) and its zones (LibraryZonesTests) are suites of their own.
@Suite(.serialized) struct LibraryTests {
    /// One library per test process: making it takes seconds.
    static let music: String = {
        let dir = NSTemporaryDirectory() + "deck-library-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        _ = try? runProgram("/bin/bash", [Paths.repoRoot + "/Tests/Fixtures/make-library.sh", dir + "/music", "6"])
        _ = try? runProgram("/bin/chmod", ["-R", "o+rX", dir])
        return dir + "/music"
    }()

    /// A local Icecast server playing a sine of `frequency` Hz as Radio's one station, `station`,
    /// and a car that has measured its library and plays the Loud Album's first track.
    static func albumBesideAStation(_ station: String, frequency: Int) throws -> Car {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: frequency, volume: 0.25)
        var car = try Car()
        car.icecast = icecast
        try car.addStation(station, url: icecast.url("/live.mp3"))
        #expect(car.deckd.waitForLog("library: loudness measured for 15 tracks", seconds: 60))
        _ = try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"])
        return car
    }

    @Test func theScanReadsTagsAndSkipsBrokenFilesNamingThem() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks (15 read, 0 unchanged)"), "\(car.deckd.log)")
        #expect(car.deckd.log.contains("skipped \(LibraryTests.music)/Broken/truncated.flac"))
        #expect(car.deckd.log.contains("skipped \(LibraryTests.music)/Broken/not audio.mp3"))
        let artists = try car.deckctl(["ui", "org.deck.library"])
        #expect(artists.contains("[/0] Artists  [/1] Albums  [/2] Genres  [/3] Folders"), "\(artists)")
        #expect(artists.contains("[/0/0] Dynamics") && artists.contains("Loud Band — 1 album") && artists.contains("Quiet Band"), "\(artists)")
        let albums = try car.deckctl(["select", "/0/1"])
        #expect(albums.contains("Loud Album — Loud Band · 2024"), "\(albums)")
        let tracks = try car.deckctl(["select", "/0/1/0"])
        for (number, format) in ["flac", "mp3", "opus", "ogg", "m4a", "wav"].enumerated() {
            #expect(tracks.contains("Loud Album \(number + 1) — Loud Band · Loud Album"), "\(format): \(tracks)")
        }
        _ = try car.deckctl(["back"])
        _ = try car.deckctl(["back"])
        let folders = try car.deckctl(["select", "/3"])
        #expect(folders.contains("[/3/2] Odd names") && !folders.contains("Broken"), "folders with music: \(folders)")
        let odd = try car.deckctl(["select", "/3/2"])
        #expect(odd.contains("Ünïcødé & spaces") && odd.contains("no tags at all"), "the file name stands in for a missing title: \(odd)")
        #expect(car.deckd.stop() == 0)
    }

    @Test func anAlbumPlaysGaplessWithItsCoverAndAnswersSeekNextShuffleAndRepeat() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]))
        #expect(try car.waitFor(#""artwork":{"#, in: ["--json", "now-playing"]), "the embedded cover")
        #expect(try car.waitFor("Loud Album 2 — Loud Band", in: ["now-playing"], seconds: 10), "the next track follows by itself")
        try car.deckd.waitForFrames(100)
        func nowPlaying() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(car.deckctl(["--json", "now-playing"]).utf8)) as? [String: Any] ?? [:]
        }
        // Track 2 sounds, 2 s in (a machine that stalled for seconds may be further on: the seek follows it).
        let sounding = try nowPlaying()["title"] as? String ?? "?"
        let track = Int(sounding.split(separator: " ").last ?? "") ?? 0
        try #require((2...5).contains(track), "\(sounding) sounds: \(car.deckd.log)")
        let seekAt = Date()
        _ = try car.deckctl(["seek", "1"])  // back: 5 s of the track left for what follows
        // At 1 s plus what has played since the seek (at least 2 s in without it), however slow the machine.
        let seeked = try nowPlaying()
        let elapsed = seeked["elapsed"] as? Double ?? -1, since = Date().timeIntervalSince(seekAt)
        #expect(seeked["title"] as? String == sounding, "\(car.deckd.log)")
        #expect(elapsed >= 0.95 && elapsed <= 1 + since + 0.25, "\(elapsed) s in, \(since) s after the seek")
        _ = try car.deckctl(["next"])
        #expect(try car.waitFor("Loud Album \(track + 1) — Loud Band", in: ["now-playing"]), "\(car.deckd.log)")
        let queue = try car.deckctl(["queue"])
        #expect(queue.contains("Loud Album 6"), "\(queue)")
        _ = try car.deckctl(["call", "player.setShuffle", #"{"mode":"items"}"#])
        _ = try car.deckctl(["call", "player.setRepeat", #"{"mode":"all"}"#])
        let modes = try car.deckctl(["call", "queue.get"])
        #expect(modes.contains(#""shuffle": "items""#) && modes.contains(#""repeat": "all""#), "\(modes)")
        #expect(try car.deckctl(["now-playing"]).contains("Loud Album \(track + 1)"), "the track plays on when shuffled")
        #expect(car.deckd.stop() == 0)

        // Track 1 (550 Hz) ran into track 2 (440 Hz) with no gap between them.
        let left = try AudioAnalysis.decodeWithFFmpeg(car.dir.path + "/out.opus").left
        let start = left.firstIndex { abs($0) > 0.01 } ?? 0
        try #require(left.count > start + 48_000 * 8, "8 s played")
        #expect(AudioAnalysis.longestGapMilliseconds(left, threshold: 0.005, start: start + 48_000 * 5, end: start + 48_000 * 7) <= 2, "gapless")
        #expect(abs(try AudioAnalysis.dominantFrequency(Array(left[(start + 48_000)..<(start + 96_000)]), start: 0) - 550) < 5)
        #expect(abs(try AudioAnalysis.dominantFrequency(Array(left[(start + 48_000 * 6 + 4_800)..<(start + 48_000 * 7)]), start: 0) - 440) < 5)
    }

    /// Once the album has ended the Library stands at its first track, stopped, holding no focus; a
    /// seek there plays (it takes the focus back), a shuffle leaves a paused track paused, and
    /// previous at the queue's first track restarts it.
    @Test func anEndedAlbumStandsAtItsFirstTrackWhereASeekPlaysAShuffleKeepsItPausedAndPreviousRestartsIt() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/06 Track 6.wav"]).contains("active"))
        #expect(try car.waitFor("Loud Album 6 — Loud Band", in: ["now-playing"]))
        _ = try car.deckctl(["seek", "5.5"])
        #expect(try car.waitFor("stopped", in: ["now-playing"]), "the album ended: \(car.deckd.log)")
        let ended = try car.deckctl(["now-playing"])
        #expect(ended.contains("Loud Album 1 — Loud Band") && ended.contains("stopped  0:00"), "back at the top: \(ended)")
        #expect(try car.waitFor(#""artwork":{"#, in: ["--json", "now-playing"]), "with its cover")
        #expect(try !car.deckctl(["session"]).contains("org.deck.library"), "the focus is given back")

        let seek = try car.deckd.deckctl(["seek", "2"])
        #expect(seek.status == 0, "\(seek.output)")
        #expect(try car.waitFor("org.deck.library  music  gain  playing", in: ["session"]))
        let playing = try car.deckctl(["now-playing"])
        #expect(playing.contains("Loud Album 1") && playing.contains("playing  0:0"), "\(playing)")

        func nowPlaying() throws -> (state: String, elapsed: Double) {
            let info = try JSONSerialization.jsonObject(with: Data(car.deckctl(["--json", "now-playing"]).utf8)) as? [String: Any]
            return (info?["playbackState"] as? String ?? "?", info?["elapsed"] as? Double ?? -1)
        }
        _ = try car.deckctl(["pause"])
        #expect(try car.deckctl(["call", "player.setShuffle", #"{"mode":"items"}"#]).contains("success"))
        let pausedAt = try nowPlaying()
        usleep(1_000_000)
        let later = try nowPlaying()
        #expect(pausedAt.state == "paused" && later.state == "paused" && abs(later.elapsed - pausedAt.elapsed) < 0.05,
                "still paused where it was: \(pausedAt), then \(later)")
        #expect(try car.deckctl(["call", "queue.get"]).contains(#""shuffle": "items""#))
        _ = try car.deckctl(["play"])
        usleep(500_000)
        let resumed = try nowPlaying()
        #expect(resumed.state == "playing" && resumed.elapsed > later.elapsed + 0.3, "it plays on from there: \(resumed)")
        #expect(try car.deckctl(["call", "queue.get"]).contains(#""shuffle": "items""#), "play after pause keeps the shuffle")
        // The playing track heads the shuffled queue: previous restarts it, as at any queue's first track.
        let previous = try car.deckd.deckctl(["previous"])
        #expect(previous.status == 0, "\(previous.output)")
        let restarted = try nowPlaying()
        #expect(restarted.state == "playing" && restarted.elapsed < resumed.elapsed, "from its start: \(restarted), after \(resumed)")
        #expect(try car.deckctl(["now-playing"]).contains("Loud Album 1"))
        #expect(car.deckd.stop() == 0)
    }

    /// At the queue's last track with repeat off no track follows: next is not enabled (a head unit
    /// greys it out, MPRIS's CanGoNext is false) and is refused as disabled; repeat all enables it.
    @Test func nextIsEnabledOnlyWhileATrackFollowsOrTheQueueRepeats() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/05 Track 5.m4a"]).contains("active"))
        #expect(try car.waitFor(#""next""#, in: ["--json", "now-playing"]), "track 6 follows track 5")
        _ = try car.deckctl(["next"])
        let last = try car.output(of: ["--json", "now-playing"]) { $0.contains("Loud Album 6") }
        #expect(last.contains(#""previous""#) && !last.contains(#""next""#), "\(last)")
        let refused = try car.deckd.deckctl(["next"])
        #expect(refused.status == 1 && refused.output.contains("-32009") && refused.output.contains("does not carry out next"),
                "\(refused.output)")
        #expect(try car.deckctl(["now-playing"]).contains("Loud Album 6"), "it plays on")

        _ = try car.deckctl(["call", "player.setRepeat", #"{"mode":"all"}"#])
        #expect(try car.waitFor(#""next""#, in: ["--json", "now-playing"]), "round to the first track")
        _ = try car.deckctl(["next"])
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A call while the Library is paused leaves it paused: its now playing does not say
    /// "interrupted", during the call or after, and play then plays on where it paused.
    @Test func aPausedLibraryStaysPausedThroughACall() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor("playing", in: ["now-playing"]))
        _ = try car.deckctl(["pause"])
        #expect(try car.waitFor("paused", in: ["now-playing"]))
        let call = LineClient(path: car.deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        usleep(300_000)
        #expect(try car.deckctl(["now-playing"]).contains("paused"), "during the call")
        call.close()
        #expect(try car.waitFor("org.deck.library  music  gain", in: ["session"]), "the Library holds the focus again")
        usleep(300_000)
        #expect(try car.deckctl(["now-playing"]).contains("paused"), "after the call")
        _ = try car.deckctl(["play"])
        #expect(try car.waitFor("playing", in: ["now-playing"]))
        #expect(car.deckd.stop() == 0)
    }

    /// A track launched during a call waits for the call to end; pause (or toggle) pressed before
    /// then calls it off: the paused track stays paused, holding the focus, and the launched one
    /// does not start.
    @Test(arguments: ["pause", "toggle"]) func aPauseCallsOffALaunchWaitingForACall(pause: String) throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        let album = "\(LibraryTests.music)/Loud Band/Loud Album"
        #expect(try car.deckctl(["launch", "org.deck.library", "\(album)/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor("playing", in: ["now-playing"]))
        _ = try car.deckctl(["pause"])
        let call = LineClient(path: car.deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        _ = try car.deckctl(["launch", "org.deck.library", "\(album)/03 Track 3.opus"])
        #expect(try car.deckctl(["session"]).contains("pending: org.deck.library music"), "it waits for the call")
        let paused = try car.deckd.deckctl([pause])
        #expect(paused.status == 0, "a waiting launch is something to pause: \(paused.output)")
        call.close()
        #expect(try car.waitFor("org.deck.library  music  gain", in: ["session"]), "the paused Library holds the focus again")
        usleep(300_000)
        let after = try car.deckctl(["now-playing"])
        #expect(after.contains("Loud Album 1") && after.contains("paused"), "\(after)")
        #expect(car.deckd.stop() == 0)
    }

    /// The screen's cover is handed to the runtime once per picture and removed once the track that
    /// had it is gone, so a long drive does not pile covers up in deckd.
    @Test func aCoverLeavesTheRuntimeWithItsTrack() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("library: 15 tracks"))
        func images() throws -> Int64? {
            try JSONValue.parse(try car.deckctl(["--json", "ui", "org.deck.library"]))["images"]?["count"]?.intValue
        }
        func waitForImages(_ count: Int64) throws -> Bool {
            for _ in 0..<50 where try images() != count { usleep(100_000) }
            return try images() == count
        }
        // Track 1 (FLAC) and track 2 (MP3) carry the same picture; track 3 (Opus) none.
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor(#""artwork":{"#, in: ["--json", "now-playing"]))
        #expect(try waitForImages(1), "the cover on the screen")
        _ = try car.deckctl(["next"])
        #expect(try car.waitFor("Loud Album 2", in: ["now-playing"]))
        #expect(try car.waitFor(#""artwork":{"#, in: ["--json", "now-playing"]))
        #expect(try images() == 1, "the same picture is kept once")
        _ = try car.deckctl(["next"])
        #expect(try car.waitFor("Loud Album 3", in: ["now-playing"]))
        #expect(try waitForImages(0), "no cover, none kept")
        #expect(car.deckd.stop() == 0)
    }

    /// `deckd --freewheel` renders an album to a file as fast as the machine goes with no gap: the
    /// Library's render waits for its decode thread (`is_freewheeling`), a track asked for before
    /// the first scan found it starts the file rather than the seconds of silence rendered meanwhile,
    /// and what a host process rendered ahead is mixed before the stream closes at the album's end.
    @Test func aFreewheelRenderOfAnAlbumHasNoGapsFromItsFirstSample() throws {
        let first = "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"
        let car = try Car(options: ["--freewheel", "--duration", "40", "--play", "org.deck.library:\(first)"])
        #expect(car.deckd.waitForLog("deckd: stopped", seconds: 60))
        #expect(car.deckd.stop() == 0)
        let left = try AudioAnalysis.decodeWithFFmpeg(car.dir.path + "/out.opus").left
        let start = left.firstIndex { abs($0) > 0.01 } ?? left.count
        #expect(start < 4_800, "the album starts the file, not \(start / 48) ms into it")
        // Six 6 s tracks in six formats, back to back: 36 s of music, then silence. The fifth, an
        // M4A, ends in 13 ms of silence of its own (AAC's padding, as ffmpeg decodes it too).
        for (from, to) in [(0.0, 29.9), (30.05, 35.98)] {
            let gap = AudioAnalysis.longestGapMilliseconds(left, threshold: 0.005, start: start + Int(from * 48_000), end: start + Int(to * 48_000))
            #expect(gap <= 2, "a gap of \(gap) ms between \(from) and \(to) s")
        }
        #expect(AudioAnalysis.longestGapMilliseconds(left, threshold: 0.005, start: start + 48_000 * 36 + 960) >= 3_000)
        // Its last frames too: the stream closes at the album's end once the mix took what the host rendered ahead.
        let last = left.lastIndex { abs($0) > 0.005 } ?? 0
        #expect(last - start >= 48_000 * 36 - 48, "the album sounds for \((last - start) / 48) ms of its 36,000")
    }

    /// Playing, the host's threads wake for frames and heartbeats; the decode thread, which keeps a
    /// 4 s ring full, refills it a second at a time when the render thread says there is room, so
    /// it wakes about once a second, and never while paused. The scan thread (it watches the
    /// folders on) runs at nice 10, so a long first scan never takes the CPU from playback.
    @Test func aPlayingFileWakesItsDecodeThreadAboutOnceASecondAndAPausedOneNever() throws {
        let car = try Car()
        #expect(car.deckd.waitForLog("loudness measured", seconds: 30), "the scan thread is done and sleeps")
        #expect(try car.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Loud Band/Loud Album/01 Track 1.flac"]).contains("active"))
        #expect(try car.waitFor("Loud Album 1 — Loud Band", in: ["now-playing"]))
        let apps = try car.deckd.apps()
        let host = try #require(apps.first { $0["id"]?.stringValue == "org.deck.library" }?["pid"]?.intValue.map { pid_t($0) }, "\(apps)")
        let nice = try ProcessThreads.niceValues(of: host)
        #expect(nice.values.filter { $0 == 10 }.count == 1 && nice.values.allSatisfy { $0 == 10 || $0 == 0 }, "\(nice)")
        usleep(1_000_000)  // the ring is full
        /// Wake-ups in 2 s of the threads other than the loop, the busiest (the render thread) apart.
        func othersWoken() throws -> (busiest: Int, rest: [String: Int]) {
            let before = try ProcessThreads.wakeUps(of: host)
            usleep(2_000_000)
            var woken = ProcessThreads.woken(from: before, to: try ProcessThreads.wakeUps(of: host)).filter { !$0.key.hasSuffix(" (\(host))") }
            let busiest = woken.max { $0.value < $1.value }
            if let busiest { woken[busiest.key] = nil }
            return (busiest?.value ?? 0, woken)
        }
        let playing = try othersWoken()
        #expect(playing.busiest >= 80, "the render thread, once a 20 ms frame: \(playing)")
        #expect(playing.rest.values.reduce(0, +) <= 5, "\(playing)")
        _ = try car.deckctl(["pause"])
        usleep(500_000)
        let paused = try othersWoken()
        #expect(paused.busiest + paused.rest.values.reduce(0, +) <= 1, "\(paused)")
        #expect(car.deckd.stop() == 0)
    }

    @Test func theDriverResumesWhereTheyWereAndOnlyChangedFilesAreReadAgain() throws {
        let dir = TemporaryDirectory()
        var car: Car? = try Car(dir: dir, output: "first.opus")
        #expect(car!.deckd.waitForLog("library: 15 tracks (15 read, 0 unchanged)"))
        _ = try car!.deckctl(["launch", "org.deck.library", "\(LibraryTests.music)/Quiet Band/Quiet Album/02 Track 2.mp3"])
        #expect(try car!.waitFor("Quiet Album 2", in: ["now-playing"]))
        _ = try car!.deckctl(["seek", "3"])
        _ = try car!.deckctl(["pause"])
        #expect(car!.deckd.stop() == 0)
        car = nil

        let copy = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: LibraryTests.music + "/Dynamics", toPath: copy.path + "/Dynamics")
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", copy.path])
        car = try Car(dir: dir, folders: [LibraryTests.music], output: "second.opus")
        #expect(car!.deckd.waitForLog("library: 15 tracks (0 read, 15 unchanged)"), "nothing changed: \(car!.deckd.log)")
        let launched = try car!.deckctl(["launch", "org.deck.library"])  // no item: where the driver was
        #expect(try car!.waitFor("Quiet Album 2 — Quiet Band", in: ["now-playing"]),
                "resumed on the same track; the launch answered \(launched); deckd's log ends: \(car!.deckd.log.suffix(4_000))")
        let resumed = try car!.deckctl(["now-playing"])
        #expect(resumed.contains("0:03") || resumed.contains("0:04"), "at the same place: \(resumed)")
        #expect(car!.deckd.stop() == 0)
        car = nil

        // One file more in a second folder and one changed: only they are read.
        let touched = LibraryTests.music + "/Odd names/no tags at all.mp3"
        _ = try runProgram("/usr/bin/touch", [touched])
        car = try Car(dir: dir, folders: [LibraryTests.music, copy.path], output: "third.opus")
        #expect(car!.deckd.waitForLog("library: 16 tracks (2 read, 14 unchanged)"), "\(car!.deckd.log)")
        #expect(car!.deckd.stop() == 0)
    }

    @Test func aSpokenPromptDucksTheLibraryAndTheRadioWhichComeBackAfterAndRepeatOneIsGapless() throws {
        let car = try LibraryTests.albumBesideAStation("Deck FM", frequency: 250)
        _ = try car.deckctl(["call", "player.setRepeat", #"{"mode":"one"}"#])  // 550 Hz throughout
        for (round, (app, seconds)) in [("org.deck.library", 1), ("org.deck.radio", 8)].enumerated() {
            if app == "org.deck.radio" { _ = try car.deckctl(["launch", app, "Deck FM"]) }
            try car.deckd.waitForFrames(50 * seconds, seconds: 30)
            _ = try car.deckctl(["launch", "org.deck.prompts", "Turn left in two hundred metres, then keep right."])
            let during = try car.deckctl(["session"])
            #expect(during.contains("\(app)  music  gain  ducked"), "\(during)")
            let deadline = Date().addingTimeInterval(10)
            while car.deckd.log.components(separatedBy: "org.deck.prompts abandoned focus").count <= round + 1, Date() < deadline { usleep(50_000) }
            // After the library's prompt, well over a whole pass of its 6 s track before the station takes over,
            // so a restart is heard clear of the prompt however late the prompt came.
            try car.deckd.waitForFrames(app == "org.deck.library" ? 450 : 150)
            #expect(try car.deckctl(["session"]).contains("\(app)  music  gain  playing  gain 0.0 dB"))
        }
        #expect(car.deckd.stop() == 0)

        // Per 100 ms: the library's 550 Hz, the station's 250 Hz, and what is left (speech).
        let left = try AudioAnalysis.decodeWithFFmpeg(car.dir.path + "/out.opus").left
        let windows = try stride(from: 0, to: left.count - 4_800, by: 4_800).map { start in
            let library = try AudioAnalysis.sineAmplitude(left, frequency: 550, start: start, count: 4_800)
            let radio = try AudioAnalysis.sineAmplitude(left, frequency: 250, start: start, count: 4_800)
            let rms = AudioAnalysis.rms(left[start..<start + 4_800])
            return (library: library, radio: radio, speech: max(0, rms * rms - library * library / 2 - radio * radio / 2).squareRoot())
        }
        // Speech: runs of windows with more than the tones, gaps under half a second bridged, a second and more long
        // (the start's ramp, an app's cut and a station's first frames make single windows).
        var runs: [ClosedRange<Int>] = []
        for index in windows.indices where windows[index].speech > 0.01 {
            if let last = runs.last, index - last.upperBound <= 5 { runs[runs.count - 1] = last.lowerBound...index } else { runs.append(index...index) }
        }
        let prompts = runs.filter { $0.count >= 10 }
        try #require(prompts.count == 2, "two prompts: \(runs)")
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        for (name, range, level) in [("library", prompts[0], \(library: Double, radio: Double, speech: Double).library),
                                     ("radio", prompts[1], \(library: Double, radio: Double, speech: Double).radio)] {
            try #require(range.lowerBound >= 8 && range.upperBound + 15 < windows.count, "\(name): room around the prompt")
            let before = median(windows[(range.lowerBound - 8)..<(range.lowerBound - 2)].map { $0[keyPath: level] })
            let ducked = median(windows[range].map { $0[keyPath: level] })
            let after = median(windows[(range.upperBound + 8)...(range.upperBound + 14)].map { $0[keyPath: level] })
            #expect(before > 0.05, "\(name) plays before the prompt: \(before)")
            #expect((0.13...0.3).contains(ducked / before), "\(name) ducked by about 14 dB under speech: \(ducked) of \(before)")
            #expect((0.85...1.15).contains(after / before), "\(name) back at its level after: \(after) of \(before)")
        }
        // Repeat one: the 6 s track (60 windows) begins again with no gap, no dip and nothing else heard. A stretch
        // longer than a pass holds a restart wherever the prompt ended; without repeat the library would stop in it.
        let cut = windows[(prompts[0].upperBound + 8)...].firstIndex { $0.library < 0.05 } ?? 0  // Radio took over
        let again = (prompts[0].upperBound + 8)..<(cut - 1)
        try #require(again.count > 60 + 5, "a whole pass of the track and more is in view after the prompt: \(again)")
        let level = median(windows[again].map(\.library))
        #expect(windows[again].allSatisfy { abs($0.library / level - 1) < 0.05 && $0.speech < 0.01 }, "\(windows[again].map { ($0.library, $0.speech) })")
    }
}
