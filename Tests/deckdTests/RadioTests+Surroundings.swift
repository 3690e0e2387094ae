import DeckBase
import DeckTestSupport
import Foundation
import Testing

/// Radio and what it is given: station lists with odd entries, long URLs and long lists, a state
/// file it cannot read, a picture server that never answers.
extension RadioTests {
    /// Stations the list cannot hold are named and the others shown; a blank genre is no genre.
    @Test func stationsSharingAStreamOrMissingOneAndWrongSettingsAreNamedAndTheScreenStillShows() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("One again", "http://127.0.0.1:9/a.mp3", "Jazz"),
                                     (" ", "http://127.0.0.1:9/b.mp3", "Pop"), ("Two", "http://127.0.0.1:9/c.mp3", " ")],
                          settings: #"{"loudnessTarget": "-14", "station": "/x.json"}"#)
        #expect(car.deckd.log.contains(#"org.deck.radio: appSettings: unknown setting "station" (known: stations, loudnessTarget)"#))
        #expect(car.deckd.log.contains(#"org.deck.radio: appSettings: "loudnessTarget" must be a number from -40.0 to -5.0 LUFS; its default applies"#),
                "a wrong setting is named, not dropped in silence: \(car.deckd.log)")
        #expect(car.deckd.waitForLog("2 stations from"), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("left out of \(car.stationsPath): One again has the streamURL of a station before it; "
                                     + "station 3 has no name or no streamURL"), "\(car.deckd.log)")
        let screen = try car.deckctl(["ui", "org.deck.radio"])
        #expect(!car.deckd.log.contains("is used twice in the template") && !screen.contains("nothing to show"), "\(screen)")
        #expect(screen.contains("] One — One on loopback") && screen.contains("] Two — Two on loopback") && !screen.contains("One again"), "\(screen)")
        _ = try car.deckd.deckctl(["launch", "org.deck.radio", "One"])  // the foreground app, whose tree `select` browses
        let genres = try car.deckctl(["select", "/1"])
        #expect(genres.contains("[/1/0] Pop") && !genres.contains("[/1/1]"), "a blank genre is no genre: \(genres)")
        #expect(car.deckd.log.components(separatedBy: "stations from").count == 2, "the list is read once at start: \(car.deckd.log)")

        // A station not in the list's shape leaves the others (the file as a Windows editor saves it).
        try ("\u{FEFF}" + #"{"station": [{"name": "Three", "streamURL": "http://127.0.0.1:9/d.mp3", "genre": null}, {"name": "No stream"}, "#
             + #"{"name": 5, "streamURL": "http://127.0.0.1:9/e.mp3"}, "Four", {"name": "Five", "streamURL": "http://127.0.0.1:9/f.mp3"}]}"#)
            .write(toFile: car.stationsPath, atomically: true, encoding: .utf8)
        #expect(car.deckd.waitForLog("2 stations from", times: 2), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("left out of \(car.stationsPath): station 2 has no streamURL; station 3 has a name that is not text; "
                                     + "station 4 is not an object"), "\(car.deckd.log)")
        let edited = try car.deckd.deckctl(["ui", "org.deck.radio"]) { $0.contains("] Three") }
        #expect(edited.contains("] Three") && edited.contains("] Five") && !edited.contains("] One"), "\(edited)")
        #expect(car.deckd.stop() == 0)
    }

    /// A stream URL that cannot reach a server (a port past 65535, no host, half an IPv6 address,
    /// a space) is left out naming why, rather than retried six times as a dropped stream.
    /// A station whose server has not answered yet shows no time passing: its clock starts with
    /// its audio.
    @Test func aStationStillConnectingShowsNoTimePassing() throws {
        let odd = try OddServer(target: "http://127.0.0.1:1/none")
        let car = try Car(stations: [("Silent", odd.url("/silent"), "Test")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Silent"])
        #expect(try car.waitForNowPlaying("Silent"))
        usleep(2_500_000)
        let state = try JSONValue.parse(try car.deckctl(["--json", "call", "nowPlaying.get"]))
        #expect(state["playbackState"] == "playing" && state["rate"]?.doubleValue == 0 && state["elapsed"]?.doubleValue == 0, "\(state.encoded())")
        #expect(try car.deckctl(["now-playing"]).contains("playing  0:00"))
        #expect(car.deckd.stop() == 0)
    }

    @Test func aStreamURLThatCannotReachAServerIsLeftOutNamingWhy() throws {
        let car = try Car(stations: [("Far port", "http://127.0.0.1:99999/x", "Pop"), ("Negative", "http://127.0.0.1:-1/x", "Pop"),
                                     ("Nowhere", "http:///x", "Pop"), ("Half", "http://[::1/x", "Pop"), ("Spaced", "http://127.0.0.1:9/a b.mp3", "Pop"),
                                     ("Plain", "http://127.0.0.1:9/a.mp3", "Pop"), ("Six", "https://[::1]:9/a.mp3", "Pop"),
                                     ("Signed", "icecast://user:secret@127.0.0.1:/a.mp3", "Pop")])
        #expect(car.deckd.waitForLog("3 stations from"), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("left out of \(car.stationsPath): Far port has the port 99999 in its streamURL, not one from 1 to 65535; "
                                     + "Negative has the port -1 in its streamURL, not one from 1 to 65535; Nowhere has no host in its streamURL and 2 more"),
                "\(car.deckd.log)")
        let screen = try car.deckctl(["ui", "org.deck.radio"])
        #expect(screen.contains("] Plain") && screen.contains("] Six") && screen.contains("] Signed") && !screen.contains("] Half") && !screen.contains("] Spaced"), "\(screen)")
        #expect(car.deckd.stop() == 0)
    }

    /// A FIFO where the Radio reads a file (a station's picture, the station list) is passed over,
    /// never waited on for a writer: the list still loads, and deckd still stops at once.
    @Test func aFIFOInPlaceOfAPictureOrTheStationListIsNotWaitedOn() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")])
        #expect(car.deckd.waitForLog("1 stations from"), "\(car.deckd.log)")
        let folder = (car.stationsPath as NSString).deletingLastPathComponent
        #expect(mkfifo(folder + "/picture.png", 0o644) == 0 && mkfifo(folder + "/list.fifo", 0o644) == 0)
        try RadioTests.write([("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop")], to: car.stationsPath,
                             images: ["Two": folder + "/picture.png"])
        #expect(car.deckd.waitForLog("2 stations from"), "\(car.deckd.log)")
        #expect(try car.deckctl(["ui", "org.deck.radio"]).contains("] Two — Two on loopback"))
        #expect(rename(folder + "/list.fifo", car.stationsPath) == 0)
        #expect(car.deckd.waitForLog("station list kept as it was: cannot read the station list \(car.stationsPath): missing, not a regular file"),
                "\(car.deckd.log)")
        #expect(car.deckd.stop(seconds: 5) == 0, "\(car.deckd.log)")
    }

    /// A station that leaves the list during a call is not tuned in again after it: the Radio
    /// stops and gives the focus back rather than hold it in silence.
    @Test func aStationThatLeftTheListDuringACallIsNotResumed() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop")])
        _ = try car.deckctl(["launch", "org.deck.radio", "One"])
        let call = LineClient(path: car.deckd.socket)
        #expect(call.call("session.request", #"{"context":"call","type":"gainTransient","name":"phone"}"#)?.contains(#""result":"granted""#) == true)
        #expect(try car.waitForNowPlaying("interrupted"), "\(car.deckd.log)")
        try RadioTests.write([("Two", "http://127.0.0.1:9/b.mp3", "Pop")], to: car.stationsPath)
        #expect(car.deckd.waitForLog("1 stations from"), "\(car.deckd.log)")
        call.close()
        #expect(car.deckd.waitForLog("the station left the list during the interruption; stopping"), "\(car.deckd.log)")
        #expect(try !car.deckctl(["session"]).contains("org.deck.radio"), "the focus is given back")
        #expect(car.deckd.stop() == 0)
    }

    /// The station played last left the list (an updated list): Radio launched with no item, or play
    /// pressed, tunes in the list's first instead of refusing for a station that is gone. A name
    /// typed in another case names its station.
    @Test func withNoItemTheFirstStationPlaysOnceTheLastOneLeftTheList() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop")])
        _ = try car.deckctl(["launch", "org.deck.radio", "Two"])
        #expect(try car.waitForNowPlaying("Two"), "\(car.deckd.log)")
        _ = try car.deckctl(["stop"])
        try RadioTests.write([("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Three", "http://127.0.0.1:9/c.mp3", "Pop")], to: car.stationsPath)
        #expect(car.deckd.waitForLog("2 stations from", times: 2), "\(car.deckd.log)")
        let launched = try car.deckd.deckctl(["launch", "org.deck.radio"])
        #expect(launched.status == 0, "\(launched.output)")
        #expect(try car.waitForNowPlaying("One"), "\(car.deckd.log)")
        // A station's name typed in another case is that station.
        #expect(try car.deckd.deckctl(["launch", "org.deck.radio", "three"]).status == 0)
        #expect(try car.waitForNowPlaying("Three"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// Next and previous are enabled only when they reach another station; the queue and the
    /// commands follow the station list as it changes while a station plays.
    @Test func nextAndPreviousAreEnabledOnlyWithAnotherStationToGoTo() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")])
        _ = try car.deckctl(["launch", "org.deck.radio", "One"])
        let alone = try car.deckctl(["--json", "now-playing"])
        #expect(alone.contains(#""pause""#) && !alone.contains(#""next""#) && !alone.contains(#""previous""#), "\(alone)")
        _ = try car.deckctl(["pause"])  // a paused station keeps now playing, and stays paused as the list changes
        usleep(800_000)  // past the drop its connection reported as it was stopped (a retry in 0.5 s)
        let paused = try car.deckctl(["ui", "org.deck.radio"]) + car.deckctl(["now-playing"])
        #expect(paused.contains("paused") && !paused.contains("Reconnecting") && !paused.contains("playing "), "\(paused)")
        try RadioTests.write([("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop")], to: car.stationsPath)
        let two = try car.deckd.deckctl(["--json", "now-playing"], seconds: 10) { $0.contains(#""next""#) && $0.contains(#""previous""#) }
        #expect(two.contains(#""next""#) && two.contains(#""previous""#), "\(car.deckd.log)")
        #expect(try car.deckctl(["queue"]).contains("2  Two"), "the queue follows the list")
        #expect(try car.deckctl(["now-playing"]).contains("paused"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A stream URL longer than a row key or a queue item's id may be (a token in its query) keeps
    /// the screen and the queue: its row and its favourite's row play it.
    @Test func aStationWhoseStreamURLIsLongerThanARowKeyShowsAndPlaysFromItsRows() throws {
        let icecast = try IcecastServer()
        try icecast.startSource("/live.mp3", codec: "mp3", frequency: 660)
        let long = icecast.url("/live.mp3?token=" + String(repeating: "a1b2", count: 300))  // over nowPlaying.maxStringBytes
        let car = try Car(stations: [("One", icecast.url("/live.mp3"), "Pop"), ("Long", long, "Pop")])
        /// The id of the first row showing `text`.
        func rowID(_ text: String) throws -> String {
            let screen = try car.deckctl(["ui", "org.deck.radio"])
            let rows = screen.split(separator: "\n").filter { $0.contains("] \(text)") }
            return try #require(rows.first.map { String($0.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }) }, "\(screen)")
        }
        _ = try car.deckctl(["launch", "org.deck.radio", "One"])
        #expect(try car.waitForNowPlaying("One"))
        #expect(!car.deckd.log.contains("the screen was refused"), "\(car.deckd.log)")
        _ = try car.deckctl(["select", try rowID("Long — Long on loopback")])
        #expect(try car.waitForNowPlaying("Long"), "\(car.deckd.log)")
        _ = try car.deckctl(["select", try rowID("Long — Long · ")])  // the row of what plays: a favourite now
        _ = try car.deckctl(["launch", "org.deck.radio", "One"])
        #expect(try car.waitForNowPlaying("One"))
        let screen = try car.deckctl(["ui", "org.deck.radio"])
        let lines = screen.split(separator: "\n")
        let favourite = lines.firstIndex { $0.hasSuffix("Favourites") }.map { lines[$0 + 1].contains("] Long — Long on loopback") }
        #expect(favourite == true, "\(screen)")
        _ = try car.deckctl(["select", try rowID("Long — Long on loopback")])  // the favourite's row, above the station's
        #expect(try car.waitForNowPlaying("Long"), "\(car.deckd.log)")
        let queue = try car.deckctl(["queue"])
        #expect(queue.contains("One") && queue.contains("Long"), "\(queue)")
        #expect(!car.deckd.log.contains("did not play") && !car.deckd.log.contains("the screen was refused") && !car.deckd.log.contains("not published"),
                "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// More stations than a level may show while driving are cut into sections, so the last one
    /// can still be reached and played from the browse tree.
    @Test func aLongStationListIsCutIntoSectionsWhileDrivingAndEveryStationStaysReachable() throws {
        let list = (1...30).map { ("Station \($0)", "http://127.0.0.1:9/\($0).mp3", "Pop") }
        let car = try Car(stations: list)
        _ = try car.deckd.deckctl(["launch", "org.deck.radio", "Station 1"])  // the foreground app, whose tree `select` browses
        let parked = try car.deckctl(["select", "/0"])
        #expect(parked.contains("[/0/29] Station 30"), "\(parked)")
        _ = try car.deckctl(["display", "--driving", "on"])
        let driving = try car.deckctl(["select", "/0"])
        #expect(driving.contains("[/0/0] Station 1 – Station 12") && driving.contains("[/0/2] Station 25 – Station 30"), "\(driving)")
        let last = try car.deckctl(["select", "/0/2"])
        #expect(last.contains("[/0/2/5] Station 30"), "\(last)")
        _ = try car.deckctl(["select", "/0/2/5"])
        #expect(try car.waitForNowPlaying("Station 30"), "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// Radio's own state that cannot be read is set aside and said, not written over in silence;
    /// the loudness estimates of stations no longer listed leave it, so it does not grow for ever.
    @Test func anUnreadableStateIsSetAsideAndEstimatesOfStationsGoneLeave() throws {
        let dir = TemporaryDirectory()
        let folder = dir.path + "/data/org.deck.radio", one = "http://127.0.0.1:9/a.mp3"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try RadioTests.write([("One", one, "Pop")], to: folder + "/stations.json")
        try #"{"favourites": ["#.write(toFile: folder + "/radio.json", atomically: true, encoding: .utf8)
        try #"{"dataDirectory": "data"}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let arguments = ["--config", dir.path + "/deck.json", "--plugins", Paths.binDir + "/plugins", "--state", "none", "--sink", "http://127.0.0.1:0/s.opus"]
        var deckd = try DeckdProcess(arguments)
        #expect(deckd.waitForLog("1 stations from"), "\(deckd.log)")
        #expect(deckd.log.contains("\(folder)/radio.json was not used (it is not what this version writes); set aside as \(folder)/radio.json.unreadable; "
                                   + "starting afresh"), "\(deckd.log)")
        #expect(try String(contentsOfFile: folder + "/radio.json.unreadable", encoding: .utf8) == #"{"favourites": ["#)
        #expect(deckd.stop() == 0)

        try #"{"favourites": ["\#(one)"], "loudness": {"\#(one)": -20, "http://127.0.0.1:9/gone.mp3": -18}}"#
            .write(toFile: folder + "/radio.json", atomically: true, encoding: .utf8)
        deckd = try DeckdProcess(arguments)
        #expect(deckd.waitForLog("1 stations from"), "\(deckd.log)")
        #expect(deckd.stop() == 0)
        let saved = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/radio.json"))) as? [String: Any]
        #expect((saved?["loudness"] as? [String: Double]) == [one: -20] && (saved?["favourites"] as? [String]) == [one], "\(saved ?? [:])")
    }

    /// Pictures follow the list and never hold it back: a list whose picture server hangs shows at
    /// once, with the pictures fetched before (not fetched again), and so does a list changed
    /// while that fetch hangs.
    @Test func aHangingPictureServerDoesNotHoldTheListAndAPictureIsFetchedOnce() throws {
        let odd = try OddServer(target: "http://127.0.0.1:9/none.mp3")
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")])
        #expect(car.deckd.waitForLog("1 stations from"), "\(car.deckd.log)")
        func hasImage(_ station: String) -> Bool { (try? imageID(of: station, car)) != nil }
        func waitFor(_ condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(3)
            while Date() < deadline, !condition() { usleep(100_000) }
            return condition()
        }
        let one = ("One", "http://127.0.0.1:9/a.mp3", "Pop"), two = ("Two", "http://127.0.0.1:9/b.mp3", "Pop")
        try RadioTests.write([one], to: car.stationsPath, images: ["One": odd.url("/picture/one.png")])
        #expect(waitFor { hasImage("One") }, "\(car.deckd.log)")
        try RadioTests.write([one, two], to: car.stationsPath, images: ["One": odd.url("/picture/one.png"), "Two": odd.url("/silent/two.png")])
        #expect(car.deckd.waitForLog("2 stations from", seconds: 3), "the list does not wait 10 s for Two's picture: \(car.deckd.log)")
        #expect(hasImage("One") && !hasImage("Two"))
        try RadioTests.write([one, two, ("Three", "http://127.0.0.1:9/c.mp3", "Pop")], to: car.stationsPath,
                             images: ["One": odd.url("/picture/one.png"), "Two": odd.url("/silent/two.png"), "Three": odd.url("/picture/three.png")])
        #expect(car.deckd.waitForLog("3 stations from", seconds: 3), "nor does a list changed while it hangs: \(car.deckd.log)")
        #expect(hasImage("One"))
        #expect(try odd.picturesSent() == 1, "One's picture was not fetched again")
        #expect(car.deckd.stop() == 0)
    }

    /// A list's pictures together are held to 64 MiB, a picture shown by many stations counted once:
    /// past it the stations after show none, and the Radio says so.
    @Test func aListsPicturesAreHeldTo64MiBTogether() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")], config: #""ui": {"maxImageTotalBytes": 134217728},"#)
        #expect(car.deckd.waitForLog("1 stations from"), "\(car.deckd.log)")
        let folder = (car.stationsPath as NSString).deletingLastPathComponent
        let size = 500 * 1024
        for index in 0..<140 {
            var picture = [UInt8](repeating: UInt8(index), count: size)
            picture.replaceSubrange(0..<8, with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            try Data(picture).write(to: URL(fileURLWithPath: "\(folder)/p\(index).png"))
        }
        // 50 stations share p0, then 139 have one each (p1…p139): 140 × 500 KiB is past 64 MiB, 131 are not.
        let shared = (0..<50).map { ("Shared \($0)", "http://127.0.0.1:9/s\($0).mp3", "Pop") }
        let own = (1..<140).map { ("Own \($0)", "http://127.0.0.1:9/o\($0).mp3", "Pop") }
        let images = Dictionary(uniqueKeysWithValues: shared.map { ($0.0, "\(folder)/p0.png") } + own.map { ($0.0, "\(folder)/p\($0.0.dropFirst(4)).png") })
        try RadioTests.write(shared + own, to: car.stationsPath, images: images)
        #expect(car.deckd.waitForLog("189 stations from"), "\(car.deckd.log)")
        #expect(car.deckd.waitForLog("the station pictures past 64 MiB together are left out: the stations after them show none"),
                "\(car.deckd.log)")
        #expect(car.deckd.log.components(separatedBy: "left out: the stations after").count == 2, "said once for the list")
        // The screen's pictures cross the host process's wire after the log lines: 64 MiB takes a while on a busy machine.
        var held: JSONValue?
        let deadline = Date().addingTimeInterval(20)
        repeat {
            held = try JSONValue.parse(try car.deckctl(["--json", "ui", "org.deck.radio"]))["images"]
            if held?["count"]?.intValue != 131 { usleep(100_000) }
        } while held?["count"]?.intValue != 131 && Date() < deadline
        #expect(held?["count"]?.intValue == 131, "p0 once and p1…p130 reached the screen: \(held?.encoded() ?? "")")
        #expect(car.deckd.stop() == 0)
    }

    /// A picture whose transfer ends before the length its server gave, or stalls midway (given
    /// up after FFmpeg's 10 s `rw_timeout`), is not shown half drawn.
    @Test func aPictureCutShortIsNotShown() throws {
        let odd = try OddServer(target: "http://127.0.0.1:9/none.mp3")
        let other = try OddServer(target: "http://127.0.0.1:9/none.mp3")  // the stalled server is not asked again
        let stations = [("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop"),
                        ("Three", "http://127.0.0.1:9/c.mp3", "Pop")]
        let car = try Car(stations: stations)
        #expect(car.deckd.waitForLog("3 stations from"), "\(car.deckd.log)")
        try RadioTests.write(stations, to: car.stationsPath, images: ["One": odd.url("/picture-cut/one.png"),
                                                                      "Two": odd.url("/picture-stall/two.png"),
                                                                      "Three": other.url("/picture/three.png")])
        let started = Date(), deadline = started.addingTimeInterval(30)
        while Date() < deadline, try imageID(of: "Three", car) == nil { usleep(100_000) }
        #expect(Date().timeIntervalSince(started) < 15, "the stalled picture is given up on once, not twice")
        #expect(try imageID(of: "Three", car) != nil, "Three's picture, fetched after the others, shows")
        #expect(try imageID(of: "One", car) == nil, "half of One's does not")
        #expect(try imageID(of: "Two", car) == nil, "nor the half of Two's before its server stalled")
        #expect(car.deckd.stop() == 0)
    }

    /// A logo of few colours is small to send at any size: one of 5000 × 4000 pixels, over what the
    /// runtime takes (4096 × 4096), reaches the screen as a 600-pixel JPEG.
    @Test func aStationLogoOfManyPixelsIsShownSmaller() throws {
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")])
        #expect(car.deckd.waitForLog("1 stations from"), "\(car.deckd.log)")
        let folder = (car.stationsPath as NSString).deletingLastPathComponent
        #expect(try TestPicture.drawn(5000, 4000, format: "png", in: folder).count < 512 << 10)
        try RadioTests.write([("One", "http://127.0.0.1:9/a.mp3", "Pop")], to: car.stationsPath, images: ["One": folder + "/grey-5000x4000.png"])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try imageID(of: "One", car) == nil { usleep(100_000) }
        let id = try #require(try imageID(of: "One", car), "\(car.deckd.log)")
        let image = try JSONValue.parse(try car.deckd.deckctl(["call", "ui.image", #"{"app":"org.deck.radio","id":\#(id)}"#]).output)
        #expect(image["mimeType"]?.stringValue == "image/jpeg")
        let path = folder + "/shown"
        try Data(base64Encoded: try #require(image["data"]?.stringValue))?.write(to: URL(fileURLWithPath: path))
        let probed = try runProgram("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
        #expect(probed.output.trimmingCharacters(in: .whitespacesAndNewlines) == "600,480")
        #expect(car.deckd.stop() == 0)
    }

    /// A picture server that lets one picture wait out the timeout is not asked for the list's
    /// others: a station whose picture is elsewhere shows it after one timeout, not one a picture.
    @Test func aStalledPictureServerIsWaitedForOnceAList() throws {
        let (dead, live) = (try OddServer(target: "http://127.0.0.1:9/none.mp3"), try OddServer(target: "http://127.0.0.1:9/none.mp3"))
        let stations = ["One", "Two", "Three", "Four"].map { ($0, "http://127.0.0.1:9/\($0).mp3", "Pop") }
        let car = try Car(stations: stations)
        #expect(car.deckd.waitForLog("4 stations from"), "\(car.deckd.log)")
        try RadioTests.write(stations, to: car.stationsPath, images: ["One": dead.url("/silent/one.png"), "Two": dead.url("/silent/two.png"),
                                                                      "Three": dead.url("/silent/three.png"), "Four": live.url("/picture/four.png")])
        let started = Date(), deadline = started.addingTimeInterval(40)
        while Date() < deadline, try imageID(of: "Four", car) == nil { usleep(100_000) }
        #expect(try imageID(of: "Four", car) != nil, "\(car.deckd.log)")
        #expect(Date().timeIntervalSince(started) < 15, "one timeout, not three")
        let said = "\(dead.url("")) did not send a picture within 8 s: its other pictures are left out of this list"
        #expect(car.deckd.log.components(separatedBy: said).count == 2, "\(car.deckd.log)")
        #expect(car.deckd.stop() == 0)
    }

    /// A picture server that never answers holds neither the loop nor the shutdown: the fetch
    /// is called off when Radio is.
    @Test func aPictureServerThatNeverAnswersDoesNotHoldTheShutdown() throws {
        let odd = try OddServer(target: "http://127.0.0.1:9/none.mp3")
        let car = try Car(stations: [("One", "http://127.0.0.1:9/a.mp3", "Pop")])
        try RadioTests.write([("One", "http://127.0.0.1:9/a.mp3", "Pop"), ("Two", "http://127.0.0.1:9/b.mp3", "Pop")], to: car.stationsPath,
                             images: ["One": odd.url("/silent/one.png"), "Two": odd.url("/silent/two.png")])
        usleep(1_000_000)  // the watcher reads the new list and waits on its first picture
        #expect(car.deckd.stop() == 0)
        let took = car.deckd.log.components(separatedBy: "org.deck.radio: deactivate took ").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        #expect(took.allSatisfy { $0 < 500 }, "\(car.deckd.log)")
    }
}
