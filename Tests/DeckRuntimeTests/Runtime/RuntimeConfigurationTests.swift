import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

@Suite struct RuntimeConfigurationTests {
    let dir = TemporaryDirectory()

    func apply(_ json: String) throws(ConfigurationError) -> RuntimeConfiguration {
        try! json.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        try configuration.apply(configFile: dir.path + "/deck.json")
        return configuration
    }

    @Test func readsEveryKeyWithPathsRelativeToTheFile() throws {
        try #"{"default": ["audio"]}"#.write(toFile: dir.path + "/policy.json", atomically: true, encoding: .utf8)
        let configuration = try apply("""
            {"plugins": ["plugins", "/abs"], "policy": "policy.json", "logLevel": "debug", "insecurePlugins": true,
             "sinks": ["file:out.opus", "http://127.0.0.1:9000/s.opus"],
             "encoder": {"bitrate": 96000, "complexity": 7, "frameMs": 40, "application": "voip", "fec": true,
                         "packetLoss": 10, "dtx": true},
             "http": {"maxQueuedBytes": 4096, "maxHeadBytes": 1024, "headTimeoutMs": 250},
             "audio": {"lateBoundMs": 80}}
            """)
        #expect(configuration.pluginDirectories == [dir.path + "/plugins", "/abs"])
        #expect(configuration.policyPath == dir.path + "/policy.json")
        #expect(configuration.policy.defaultGrants == [.audio])
        #expect(configuration.logLevel == .debug)
        #expect(configuration.allowInsecurePlugins)
        #expect(configuration.sinks == ["file:\(dir.path)/out.opus", "http://127.0.0.1:9000/s.opus"])
        let encoder = configuration.audio.encoder
        #expect((encoder.bitrate, encoder.complexity, encoder.application) == (96_000, 7, .voip))
        #expect(encoder.inbandFEC && encoder.dtx && encoder.expectedPacketLoss == 10)
        #expect(configuration.audio.frameSize.samples == 1920)
        #expect(configuration.httpLimits.maxQueuedBytes == 4096)
        #expect(configuration.httpLimits.maxHeadBytes == 1024)
        #expect(configuration.httpLimits.headTimeoutMilliseconds == 250)
        #expect(configuration.audio.lateBoundNanoseconds == 80_000_000)
    }

    @Test(arguments: [
        (#"{"encoder": {"bitrate": 1}}"#, "bitrate 1 is out of range (6000 to 510000 bits/s)"),
        (#"{"encoder": {"complexity": 11}}"#, "complexity 11 is out of range (0 to 10)"),
        (#"{"encoder": {"application": "music"}}"#, "application \"music\" is not one of audio, lowdelay, voip"),
        (#"{"encoder": {"frameMs": 30}}"#, "frame size 30.0 ms is not an Opus frame size (2.5, 5, 10, 20, 40 or 60)"),
        (#"{"encoder": {"fec": "yes"}}"#, "encoder.fec must be true or false"),
        (#"{"encoder": {"vbr": true}}"#, "unknown key \"encoder.vbr\" (known: bitrate, complexity, frameMs, application, fec, packetLoss, dtx)"),
        (#"{"http": {"maxHeadBytes": 0}}"#, "http.maxHeadBytes must be a positive integer"),
        (#"{"sinks": "file:x.opus"}"#, "\"sinks\" must be an array of sink URIs"),
        (#"{"audio": {"lateBoundMs": -1}}"#, "\"audio\" must be {\"lateBoundMs\": N} with N a positive number of milliseconds"),
    ])
    func badValuesNameTheKeyAndTheRange(json: String, message: String) {
        #expect(throws: ConfigurationError.invalid(dir.path + "/deck.json", message)) { try apply(json) }
    }

    @Test func theEncoderAcceptsFractionalFrameSizes() throws {
        #expect(try apply(#"{"encoder": {"frameMs": 2.5}}"#).audio.frameSize.samples == 120)
    }
}
