import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// The output picker in the real runtime: app audio goes where the HMI chooses, navigation stays
/// on the sink it is pinned to, and both files decode whole with ffmpeg and opusinfo.
@Suite struct OutputPickerTests {
    let dir = TemporaryDirectory()


    @Test func appAudioMovesToTheChosenSinkWhileNavigationStaysOnItsPinnedSink() throws {
        let cabin = dir.path + "/cabin.opus", rear = dir.path + "/rear.opus"
        let harness = try StreamingHarness(freewheel: false, sinks: ["file:\(cabin)?name=Cabin&kind=speakers",
                                                                     "file:\(rear)?name=Rear%20seats&kind=headphones"]) {
            $0.pins = [.navigation: "Cabin"]
        }
        let radio = try harness.load(try Fixture.app(in: dir.path, "Radio", id: "org.example.radio", entitlements: ["audio"]))
        let maps = try harness.load(try Fixture.app(in: dir.path, "Maps", id: "org.example.maps", entitlements: ["maps"]))
        try harness.start()
        let sinks = harness.runtime.sinks.list
        #expect(sinks.map(\.name) == ["Cabin", "Rear seats"])
        #expect(sinks.map(\.kind) == [.speakers, .headphones])
        try harness.runtime.focus.play(pluginID: radio.id, item: "sine-440")
        try harness.runtime.focus.play(pluginID: maps.id, item: "sine-880@navigation/3")
        harness.run(for: 1)
        // Every sink has app audio; only the cabin has navigation.
        #expect(sinks.allSatisfy { harness.runtime.output.carriesAppAudio($0.id) })
        try harness.runtime.output.select([sinks[1].id])
        #expect(!harness.runtime.output.carriesAppAudio(sinks[0].id))
        #expect(harness.runtime.output.selection == ["Rear seats"])
        harness.run(for: 1)
        #expect(harness.shutDown(), "the file's writer did not finish")

        let cabinAudio = try AudioAnalysis.decodeWithFFmpeg(cabin).left, rearAudio = try AudioAnalysis.decodeWithFFmpeg(rear).left
        #expect(abs(cabinAudio.count - rearAudio.count) <= 960, "both files carry every frame of the run")
        for path in [cabin, rear] {
            let info = try AudioAnalysis.opusinfo(path)
            #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        }
        let before = 14_400, after = rearAudio.count - 33_600  // 0.3 s in, and 0.7 s before the end
        func level(_ audio: [Float], _ frequency: Double, at start: Int) throws -> Double {
            try AudioAnalysis.sineAmplitude(audio, frequency: frequency, start: start)
        }
        // The rear seats hear the (ducked) radio all along and never the prompt.
        for start in [before, after] {
            #expect(try level(rearAudio, 440, at: start) > 0.01)
            #expect(try level(rearAudio, 880, at: start) < 0.001)
        }
        // The cabin heard both, then the prompt alone once app audio moved.
        #expect(try level(cabinAudio, 440, at: before) > 0.01)
        #expect(try level(cabinAudio, 880, at: before) > 0.1)
        #expect(try level(cabinAudio, 440, at: after) < 0.001)
        #expect(try level(cabinAudio, 880, at: after) > 0.1)
        // The radio left the cabin with a fade: nothing above 4 kHz anywhere in either file.
        for audio in [cabinAudio, rearAudio] {
            let loudest = try stride(from: 4_800, to: audio.count - 4_800, by: 1_024).map { try AudioAnalysis.levelAbove(4_000, in: audio, start: $0) }.max()!
            #expect(loudest < -80, "a click of \(loudest) dB")
        }
    }

    @Test func aSecondSinkWithATakenNameIsRefused() throws {
        let harness = try StreamingHarness(freewheel: true, sinks: ["file:\(dir.path)/a.opus?name=Cabin"])
        try harness.start()
        let text = "file:\(dir.path)/b.opus?name=Cabin"
        #expect(throws: SinkError.invalidURI(text, "the name Cabin is taken by sink 1")) { try harness.runtime.output.addSink(text) }
        #expect(throws: SinkError.noSuchSink(7)) { try harness.runtime.output.select([7]) }
    }

    /// A pin naming a sink that did not open (a name mistyped in the config) is said at the start,
    /// not found out from where the prompts are heard.
    @Test func aPinToASinkThatIsNotOpenIsNamedAtStart() throws {
        let harness = try StreamingHarness(freewheel: true, sinks: ["file:\(dir.path)/a.opus?name=Cabin"]) {
            $0.pins = [.navigation: "Cabn", .systemSound: "Cabn"]
        }
        try harness.start()
        #expect(harness.log.messages(from: "sinks").contains("pins: navigation, systemSound pinned to the sink Cabn, which is not open: "
                                                             + "heard with app audio until a sink of that name opens (sinks.add with name=)"),
                "\(harness.log.messages(from: "sinks"))")
    }
}
