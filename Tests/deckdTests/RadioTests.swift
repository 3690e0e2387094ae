import DeckBase
import DeckTestSupport
import Foundation
import Testing

/// The Radio app (Plugins/Radio) against a real Icecast server on loopback fed by ffmpeg: titles
/// from Ogg comments and ICY, reconnection, the servers that misbehave, the station list's reload
/// and favourites; judged through deckctl and on the rendered file decoded by ffmpeg.
@Suite(.serialized) struct RadioTests {
    /// A deckd whose Radio reads `stations` from its data folder, recording to `output`.
    struct Car {
        let dir = TemporaryDirectory()
        let deckd: DeckdProcess
        var output: String { dir.path + "/out.opus" }
        var stationsPath: String { dir.path + "/data/org.deck.radio/stations.json" }

        /// `config`: more members of deckd's config, each followed by a comma.
        init(stations: [(name: String, url: String, genre: String)], options: [String] = [], settings: String = "{}", config: String = "") throws {
            try FileManager.default.createDirectory(atPath: dir.path + "/data/org.deck.radio", withIntermediateDirectories: true)
            try RadioTests.write(stations, to: dir.path + "/data/org.deck.radio/stations.json")
            try #"{\#(config)"dataDirectory": "data", "appSettings": {"org.deck.radio": \#(settings)}}"#
                .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
            deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", Paths.binDir + "/plugins", "--state", "none",
                                      "--sink", "file:\(dir.path)/out.opus"] + options)
            guard deckd.waitForLog("deckd: ready") else { throw CommandFailure(description: "deckd did not get ready:\n\(deckd.log)") }
        }

        func deckctl(_ arguments: [String]) throws -> String { try deckd.deckctl(arguments).output }

        /// Waits until `deckctl now-playing` shows `fragment`.
        func waitForNowPlaying(_ fragment: String, seconds: Double = 10) throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try deckctl(["now-playing"]).contains(fragment) { return true }
                usleep(100_000)
            }
            return false
        }
    }

    /// Writes the list to a new file renamed over `path`, or with `inPlace` into `path` itself, in
    /// two halves 20 ms apart (as a slow editor would). `images` gives stations, by name, a picture.
    static func write(_ stations: [(name: String, url: String, genre: String)], to path: String, inPlace: Bool = false,
                      images: [String: String] = [:]) throws {
        let list = ["station": stations.map { ["name": $0.name, "streamURL": $0.url, "desc": "\($0.name) on loopback", "genre": $0.genre,
                                               "longDesc": "A test station", "imageURL": images[$0.name] ?? ""] }]
        let bytes = try JSONSerialization.data(withJSONObject: list)
        guard inPlace else {
            try bytes.write(to: URL(fileURLWithPath: path + ".new"))
            rename(path + ".new", path)
            return
        }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.truncate(atOffset: 0)
        try file.write(contentsOf: bytes.prefix(bytes.count / 2))
        usleep(20_000)
        try file.write(contentsOf: bytes.dropFirst(bytes.count / 2))
        try file.close()
    }

    /// The dominant frequency of each second of the rendered file.
    private func frequencies(_ output: String) throws -> [Double] {
        let left = try AudioAnalysis.decodeWithFFmpeg(output).left
        return try stride(from: 0, to: left.count - 48_000, by: 48_000).map { try AudioAnalysis.dominantFrequency(Array(left[$0..<$0 + 48_000]), start: 0) }
    }

    @Test func opusAndMP3MountsPlayWithTheirTitlesAndNextMovesThroughTheStations() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/opus.ogg", codec: "opus", frequency: 440, title: "Opus Song", artist: "Opus Band")
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let car = try Car(stations: [("Deck Opus", icecast.url("/opus.ogg"), "Test"), ("Deck MP3", icecast.url("/live.mp3"), "Talk")])

        #expect(try car.deckctl(["launch", "org.deck.radio", "Deck Opus"]).contains("active"))
        #expect(try car.waitForNowPlaying("Opus Song — Opus Band"), "the Ogg comments: \(car.deckd.log)")
        let playing = try car.deckctl(["--json", "now-playing"])
        #expect(playing.contains(#""album":"Deck Opus""#) && playing.contains(#""live":true"#), "\(playing)")
        try car.deckd.waitForFrames(150)

        _ = try car.deckctl(["next"])
        #expect(try car.waitForNowPlaying("Deck MP3"))
        try car.deckd.waitForFrames(100)
        try icecast.setTitle("/live.mp3", "Some Artist - Some Song")
        #expect(try car.waitForNowPlaying("Some Song — Some Artist"), "ICY StreamTitle split: \(car.deckd.log)")
        #expect(car.deckd.waitForLog("now on Deck MP3: Some Artist – Some Song"), "\(car.deckd.log)")
        try car.deckd.waitForFrames(150)
        let ui = try car.deckctl(["ui", "org.deck.radio"])
        #expect(ui.contains("[/0] Stations") && ui.contains("[/1] Genres") && ui.contains("Deck MP3 — Deck MP3 on loopback ♪"), "\(ui)")
        #expect(car.deckd.stop() == 0)

        let heard = try frequencies(car.output)
        #expect(heard.contains { abs($0 - 440) < 5 } && heard.contains { abs($0 - 660) < 5 }, "440 Hz then 660 Hz: \(heard)")
        let first660 = heard.firstIndex { abs($0 - 660) < 5 } ?? 0
        #expect(heard[..<first660].allSatisfy { abs($0 - 660) >= 5 } && heard[first660...].dropLast().allSatisfy { abs($0 - 660) < 5 },
                "the station changed once: \(heard)")
    }

    /// `deckd --freewheel` records a live station in real time, as it arrives, with no gap once it
    /// sounds: the Radio's render (`is_freewheeling`) paces itself, so the stream's cushion takes
    /// the network's bursts as when the output is paced, instead of draining into silence.
    @Test func aFreewheelRecordingOfAStationHasNoGaps() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let began = Date()
        let car = try Car(stations: [("Deck MP3", icecast.url("/live.mp3"), "Talk")],
                          options: ["--freewheel", "--duration", "8", "--play", "org.deck.radio:Deck MP3"])
        #expect(car.deckd.waitForLog("deckd: stopped", seconds: 30), "\(car.deckd.log)")
        let took = Date().timeIntervalSince(began)
        #expect(car.deckd.stop() == 0)
        let left = try AudioAnalysis.decodeWithFFmpeg(car.output).left
        let start = left.firstIndex { abs($0) > 0.01 } ?? left.count
        let gap = AudioAnalysis.longestGapMilliseconds(left, threshold: 0.005, start: start, end: left.count - 960)
        #expect(start < 48_000 && gap <= 2, "sound from \(start / 48) ms, a gap of \(gap) ms; \(took) s for 8 s")
        #expect(abs(try AudioAnalysis.dominantFrequency(Array(left[(start + 48_000)..<(start + 96_000)]), start: 0) - 660) < 5)
    }

    @Test func aDroppedSourceIsReconnectedWithoutLosingFocusOrClicking() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let car = try Car(stations: [("Deck MP3", icecast.url("/live.mp3"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Deck MP3"])
        try car.deckd.waitForFrames(150)
        icecast.killSource("/live.mp3")
        #expect(car.deckd.waitForLog("reconnecting in"), "\(car.deckd.log)")
        let during = try car.deckctl(["session"])
        #expect(during.contains("org.deck.radio  music  gain  playing"), "the focus stays: \(during)")
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("Reconnecting in"))
        usleep(1_500_000)
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, !(try car.deckctl(["ui", "org.deck.radio"]).contains("Deck MP3 · Live")) { usleep(100_000) }
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("Deck MP3 · Live"), "live again: \(car.deckd.log)")
        try car.deckd.waitForFrames(100)
        #expect(car.deckd.stop() == 0)

        let left = try AudioAnalysis.decodeWithFFmpeg(car.output).left
        let gap = AudioAnalysis.longestGapMilliseconds(left, threshold: 0.01, start: 48_000)
        #expect(gap > 500, "silence while the source was away: \(gap) ms")
        // A 660 Hz sine of amplitude a moves at most 2π·660/48000·a per sample; a click jumps far more.
        let peak = left.map { abs($0) }.max() ?? 0
        let steepest = zip(left.dropFirst(), left).map { abs($0 - $1) }.max() ?? 0
        // (Opus coding lets it reach about 1.6 times that; a step to silence would be 10 times.)
        #expect(steepest <= Float(2 * Double.pi * 660 / 48_000) * peak * 2.5, "no click: steepest step \(steepest) for a peak of \(peak)")
        #expect(try frequencies(car.output).suffix(2).contains { abs($0 - 660) < 5 }, "the station plays again")
    }

    /// Play pressed during a call waits for the call to end; pause (or toggle) pressed before then
    /// calls it off, so the call's end does not tune in again.
    @Test(arguments: ["pause", "toggle"]) func aPauseCallsOffAPlayWaitingForACall(pause: String) throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let car = try Car(stations: [("Deck MP3", icecast.url("/live.mp3"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Deck MP3"])
        #expect(try car.waitForNowPlaying("Deck MP3"))
        #expect(try car.deckd.deckctl(["pause"]).status == 0)
        let call = LineClient(path: car.deckd.socket)
        let answer = call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)
        #expect(answer?.contains(#""result":"granted""#) == true, "\(answer ?? "no answer")")
        #expect(try car.deckd.deckctl(["play"]).status == 0)
        #expect(try car.deckctl(["session"]).contains("pending: org.deck.radio music"), "it waits for the call")
        let paused = try car.deckd.deckctl([pause])
        #expect(paused.status == 0, "a waiting play is something to pause: \(paused.output)")
        call.close()
        usleep(500_000)
        #expect(try !car.deckctl(["session"]).contains("org.deck.radio"), "the call ended and Radio did not tune in")
        #expect(try car.deckctl(["now-playing"]).contains("paused"))
        #expect(car.deckd.stop() == 0)
    }

    /// A call pauses the Radio: it lets go of the connection rather than stall it, and tunes in
    /// again when the call ends, so what follows is the station as it is now, not the seconds
    /// queued before the call (nor what the server kept while it was not read).
    @Test func afterACallTheStationPlaysLiveNotWhatWasQueuedBeforeIt() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let car = try Car(stations: [("Deck MP3", icecast.url("/live.mp3"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Deck MP3"])
        try car.deckd.waitForFrames(150)
        let call = LineClient(path: car.deckd.socket)
        #expect(call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)?.contains(#""result":"granted""#) == true)
        #expect(try car.waitForNowPlaying("interrupted"))
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("Deck MP3 · Interrupted"))
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, try icecast.listeners("/live.mp3") > 0 { usleep(100_000) }
        #expect(try icecast.listeners("/live.mp3") == 0, "the connection is let go during the call")
        // The programme moves on while the call lasts.
        icecast.killSource("/live.mp3")
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 990)
        let callEnded = try car.deckd.frames()
        call.close()
        #expect(car.deckd.waitForLog("tuning to Deck MP3", times: 2), "\(car.deckd.log)")
        try car.deckd.waitForFrames(250)
        #expect(try icecast.listeners("/live.mp3") == 1, "\(car.deckd.log)")
        #expect(try car.deckctl(["now-playing"]).contains("playing"))
        #expect(car.deckd.stop() == 0)

        let left = try AudioAnalysis.decodeWithFFmpeg(car.output).left
        let after = Array(left.dropFirst(callEnded * 960))
        let heard = try stride(from: 0, to: after.count - 32_768, by: 24_000).compactMap { start -> Double? in
            let window = Array(after[start..<start + 32_768])  // what dominantFrequency looks at
            return (window.map { abs($0) }.max() ?? 0) > 0.05 ? try AudioAnalysis.dominantFrequency(window, start: 0) : nil
        }
        #expect(heard.filter { abs($0 - 990) < 20 }.count >= 4 && !heard.contains { abs($0 - 660) < 20 },
                "the station as it is now (990 Hz) after the call, not as it was (660 Hz): \(heard)")
    }

    @Test func oggVorbisAndAACMountsPlay() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/vorbis.ogg", codec: "vorbis", frequency: 770, title: "Vorbis Song")
        try icecast.startSource("/live.aac", codec: "aac", frequency: 880)
        let car = try Car(stations: [("Deck Vorbis", icecast.url("/vorbis.ogg"), "Test"), ("Deck AAC", icecast.url("/live.aac"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Deck Vorbis"])
        #expect(try car.waitForNowPlaying("Vorbis Song"), "\(car.deckd.log)")
        try car.deckd.waitForFrames(150)
        _ = try car.deckctl(["next"])
        #expect(try car.waitForNowPlaying("Deck AAC"))
        try car.deckd.waitForFrames(150)
        #expect(car.deckd.stop() == 0)
        let heard = try frequencies(car.output)
        #expect(heard.contains { abs($0 - 770) < 5 } && heard.contains { abs($0 - 880) < 5 }, "770 Hz then 880 Hz: \(heard)")
    }

    /// A broadcaster's HLS stream (an .m3u8 whose segments are fetched as they come) plays.
    @Test func anHLSStationPlays() throws {
        let segments = TemporaryDirectory()
        let made = try runProgram("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=550:duration=8", "-c:a", "aac",
                                                      "-b:a", "64k", "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", segments.path + "/live.m3u8"])
        try #require(made.status == 0, "\(made.output)")
        let server = try OddServer(target: "http://127.0.0.1:9/", folder: segments.path)
        let car = try Car(stations: [("Deck HLS", server.url("/files/live.m3u8"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Deck HLS"])
        try car.deckd.waitForFrames(150)
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("Deck HLS · Live"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
        #expect(try frequencies(car.output).filter { abs($0 - 550) < 5 }.count >= 2, "550 Hz from the segments")
    }

    @Test func redirectsAndPlaylistsAreFollowed() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let odd = try OddServer(target: icecast.url("/live.mp3"))
        let car = try Car(stations: [("Moved", odd.url("/redirect"), "Test"), ("Listed", odd.url("/station.pls"), "Test"),
                                     ("Also listed", odd.url("/station.m3u"), "Test"), ("Relative", odd.url("/lists/relative.m3u"), "Test"),
                                     ("Rooted", odd.url("/lists/rooted.pls"), "Test")])
        for name in ["Moved", "Listed", "Also listed", "Relative", "Rooted"] {
            _ = try car.deckctl(["launch", "org.deck.radio", name])
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !(try car.deckctl(["ui", "org.deck.radio"]).contains("\(name) · Live")) { usleep(100_000) }
            #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("\(name) · Live"), "\(name): \(car.deckd.log)")
        }
        #expect(car.deckd.stop() == 0)
    }

    /// A playlist from the network is the server's word: it may send the radio to other streams,
    /// never to the car's files or a pipe (FFmpeg would open `file:` and `pipe:` as readily).
    @Test func aPlaylistFromTheNetworkNamesNoLocalFileNorPipe() throws {
        let odd = try OddServer(target: "http://127.0.0.1:1/none")
        let car = try Car(stations: [("File", odd.url("/hostile.pls"), "Test"), ("Pipe", odd.url("/hostile.m3u"), "Test")])
        for (name, entry, playlist) in [("File", "file:///etc/passwd", "/hostile.pls"), ("Pipe", "pipe:0", "/hostile.m3u")] {
            _ = try car.deckctl(["launch", "org.deck.radio", name])
            #expect(car.deckd.waitForLog("\(name) cannot play: cannot open \(odd.url(playlist)): it lists \(entry); "
                                         + "a playlist from the network may name only http:// and https:// streams"), "\(car.deckd.log)")
        }
        #expect(!car.deckd.log.contains("reconnecting"), "neither is tried again")
        #expect(car.deckd.stop() == 0)
    }

    @Test func aMissingStationAndGarbageGiveUpAtOnceWithAClearMessageAndDeckdCarriesOn() throws {
        let odd = try OddServer(target: "http://127.0.0.1:1/none")
        let car = try Car(stations: [("Gone", odd.url("/missing"), "Test"), ("Noise", odd.url("/garbage"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Gone"])
        #expect(car.deckd.waitForLog("Gone cannot play: cannot open \(odd.url("/missing")): Server returned 404 Not Found"), "\(car.deckd.log)")
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("Cannot play: cannot open"))
        #expect(!(try car.deckctl(["session"]).contains("org.deck.radio")), "the focus is given back")
        _ = try car.deckctl(["launch", "org.deck.radio", "Noise"])
        #expect(car.deckd.waitForLog("Noise cannot play: cannot open \(odd.url("/garbage")): Invalid data"), "\(car.deckd.log)")
        #expect(!car.deckd.log.contains("reconnecting"), "neither is tried again")
        #expect(try car.deckd.deckctl(["status"]).status == 0)
        #expect(car.deckd.stop() == 0)
    }

    @Test func aSlowServerShowsBufferingAndPlaysWhatArrives() throws {
        let dir = TemporaryDirectory()
        let file = dir.path + "/slow.mp3"
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=f=550:d=20", "-ac", "2", "-b:a", "128k", file])
        let odd = try OddServer(target: "http://127.0.0.1:1/none", slowFile: file)
        let car = try Car(stations: [("Slow", odd.url("/slow"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Slow"])
        var shown: [String] = []
        let deadline = Date().addingTimeInterval(12)
        while Date() < deadline, !(shown.contains { $0.contains("Slow · Buffering…") } && shown.contains { $0.contains("Slow · Live") }) {
            shown.append(try car.deckctl(["ui", "org.deck.radio"]))
            usleep(100_000)
        }
        #expect(shown.contains { $0.contains("Slow · Live") } && shown.contains { $0.contains("Slow · Buffering…") },
                "live, then buffering as the server falls behind")
        #expect(try car.deckctl(["session"]).contains("org.deck.radio  music  gain  playing"))
        #expect(car.deckd.stop() == 0)
        #expect(try frequencies(car.output).contains { abs($0 - 550) < 5 })
    }

    @Test func aChangedStationListReloadsTheTreeAndFavouritesAreKept() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let car = try Car(stations: [("One", icecast.url("/live.mp3"), "Pop")])
        for (picture, name) in [("station-mp3.png", "a.png"), ("station-opus.png", "b.png")] {
            try FileManager.default.copyItem(atPath: Paths.repoRoot + "/Plugins/Radio/" + picture, toPath: car.dir.path + "/data/org.deck.radio/" + name)
        }
        try RadioTests.write([("One", icecast.url("/live.mp3"), "Pop"), ("Two", icecast.url("/live.mp3?two"), "Jazz")], to: car.stationsPath,
                             images: ["One": "a.png"])
        #expect(car.deckd.waitForLog("2 stations from"), "\(car.deckd.log)")
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("[/0/1] Two — Two on loopback"), "the tree was reloaded")
        _ = try car.deckctl(["launch", "org.deck.radio", "One"])  // the foreground app: the screen the HMI shows
        let genres = try car.deckctl(["select", "/1"])
        #expect(genres.contains("[/1/0] Pop") && genres.contains("[/1/1] Jazz"), "\(genres)")
        _ = try car.deckctl(["back"])

        _ = try car.deckctl(["launch", "org.deck.radio", "Two"])
        #expect(try car.waitForNowPlaying("Two"))
        let screen = try car.deckctl(["ui", "org.deck.radio"])
        let row = try #require(screen.split(separator: "\n").first { $0.contains("] Two — Two · ") }, "\(screen)")
        let id = String(row.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" })
        _ = try car.deckctl(["select", id])
        // The screen lists it among the favourites too (a key used twice would have refused the screen).
        let favourites = try car.deckctl(["ui", "org.deck.radio"])
        #expect(favourites.contains("Favourites") && favourites.components(separatedBy: "] Two — Two on loopback").count == 3, "\(favourites)")
        #expect(try car.deckctl(["select", "/2"]).contains("[/2/0] Two"), "the favourite is in its tab")
        // Written in place rather than renamed over: read once it is closed, whole.
        let three = [("One", icecast.url("/live.mp3"), "Pop"), ("Two", icecast.url("/live.mp3?two"), "Jazz"), ("Three", icecast.url("/live.mp3?3"), "Pop")]
        let before = try image(of: "One", car)
        try RadioTests.write(three, to: car.stationsPath, inPlace: true, images: ["One": "b.png"])
        #expect(car.deckd.waitForLog("3 stations from"), "\(car.deckd.log)")
        #expect(!car.deckd.log.contains("station list kept as it was"), "\(car.deckd.log)")
        // The new picture shows; the old one left the screen and the runtime's memory.
        let after = try image(of: "One", car)
        #expect(after != before)
        #expect(try car.deckd.deckctl(["call", "ui.image", #"{"app":"org.deck.radio","id":\#(after)}"#]).output.contains("image/png"))
        let gone = try car.deckd.deckctl(["call", "ui.image", #"{"app":"org.deck.radio","id":\#(before)}"#])
        #expect(gone.status != 0 && gone.output.contains("no image \(before) from org.deck.radio"), "\(gone.output)")
        // The station playing left the list: previous goes to the last station, next would go to the first.
        try RadioTests.write([three[0], three[2]], to: car.stationsPath)
        #expect(car.deckd.waitForLog("2 stations from", times: 2), "\(car.deckd.log)")
        _ = try car.deckctl(["previous"])
        #expect(try car.waitForNowPlaying("Three"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: car.dir.path + "/data/org.deck.radio/radio.json")))
        #expect((saved as? [String: Any])?["favourites"] as? [String] == [icecast.url("/live.mp3?two")], "kept in the data folder: \(saved)")
    }

    /// The image id of the Radio screen's first row titled `station`.
    private func image(of station: String, _ car: Car) throws -> Int64 {
        try #require(try imageID(of: station, car), "no image on \(station)'s row")
    }

    /// The image of `station`'s row on the Radio's screen, if it has one.
    func imageID(of station: String, _ car: Car) throws -> Int64? {
        let screen = try JSONValue.parse(try car.deckctl(["--json", "ui", "org.deck.radio"]))
        let rows = screen["stack"]?.arrayValue?.first?["sections"]?.arrayValue?.flatMap { $0["items"]?.arrayValue ?? [] } ?? []
        return rows.first { $0["text"]?.stringValue == station }?["image"]?.intValue
    }
}

/// Tests/Fixtures/odd-http-server.py: a redirect, playlists, a 404, garbage, a slow stream and pictures.
final class OddServer {
    private let process: ChildProgram
    let port: Int

    /// `folder`: what `/files/NAME` serves.
    init(target: String, slowFile: String = "/dev/null", folder: String? = nil) throws {
        process = try ChildProgram("/usr/bin/python3", [Paths.repoRoot + "/Tests/Fixtures/odd-http-server.py", target, slowFile] + (folder.map { [$0] } ?? []),
                                   output: .pipe, errors: .null)
        let line = String(decoding: process.outputHandle?.availableData ?? Data(), as: UTF8.self)
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CommandFailure(description: "the odd server did not say its port: \(line)")
        }
        self.port = port
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// How many pictures (`/picture/NAME`) it has sent.
    func picturesSent() throws -> Int { Int(try runProgram("/usr/bin/curl", ["-sf", url("/picture-count")]).output) ?? -1 }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
