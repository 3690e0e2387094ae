import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckState
import DeckSession

/// The config's zones, checked key by key, and what each zone keeps across a restart.
@Suite struct ZoneConfigurationTests {
    let dir = TemporaryDirectory()

    func apply(_ json: String) throws(ConfigurationError) -> RuntimeConfiguration {
        try! json.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        try configuration.apply(configFile: dir.path + "/deck.json")
        return configuration
    }

    @Test func zonesAreReadWithTheirSinksSharedContextsVolumesAndDisplays() throws {
        let configuration = try apply("""
            {"display": {"driving": true}, "maxZones": 3,
             "zones": [{"id": "front", "name": "Front seats", "sinks": ["Cabin"], "sharedContexts": ["safety", "emergency"]},
                       {"id": "rear", "sinks": ["Rear"], "display": {"width": 1280, "height": 720},
                        "volumeGroups": [{"name": "media", "contexts": ["music"], "index": 10, "maxIndex": 20}]}]}
            """)
        #expect(configuration.zones.map(\.id) == ["front", "rear"])
        #expect(configuration.zones[0].name == "Front seats" && configuration.zones[1].name == "rear")
        #expect(configuration.zones[0].sharedContexts == [.safety, .emergency])
        #expect(configuration.zones[1].volumeGroups?.group(named: "media")?.maxIndex == 20)
        #expect(configuration.maxZones == 3)
        let displays = configuration.zoneDisplays
        #expect(displays[0].driving, "the primary zone's display follows the config's")
        #expect(!displays[1].driving && displays[1].width == 1280, "a passenger display is never limited by driving")
        #expect(RuntimeConfiguration().effectiveZones == [.primary])
    }

    @Test func theExampleZonesConfigReads() throws {
        var example = RuntimeConfiguration()
        try example.apply(configFile: Paths.repoRoot + "/examples/configs/zones.json")
        #expect(example.zones.map(\.id) == ["front", "rear"])
        #expect(example.zones[1].sinks == ["Rear left", "Rear right"])
        #expect(example.zones[1].volumeGroups?.group(named: "media")?.index == 20)
        #expect(example.zoneDisplays[1].width == 1280)
    }

    @Test(arguments: [
        (#"{"zones": []}"#, #""zones" must be a non-empty array of zone objects"#),
        (#"{"zones": [{"name": "x"}]}"#, "zones[0].id must be 1 to 32 of a-z, 0-9, - and _, starting with a letter"),
        (#"{"zones": [{"id": "2nd"}]}"#, "zones[0].id must be 1 to 32 of a-z, 0-9, - and _, starting with a letter"),
        (#"{"zones": [{"id": "a"}, {"id": "a"}]}"#, #"zones: the id "a" is used twice"#),
        (#"{"zones": [{"id": "a", "sinks": ["S"]}, {"id": "b", "sinks": ["S"]}]}"#, #"zones: the sink "S" is in a and b; a sink is in one zone"#),
        (#"{"zones": [{"id": "a", "sharedContexts": ["gossip"]}]}"#, #"zones[0].sharedContexts: unknown context "gossip""#),
        (#"{"zones": [{"id": "a", "seats": 2}]}"#, #"zones[0]: unknown key "seats""#),
        (#"{"zones": [{"id": "a"}, {"id": "b", "display": {"driving": true}}]}"#,
         "zones[1].display: only the primary zone's display is limited by driving"),
        (#"{"maxZones": 2, "zones": [{"id": "a"}, {"id": "b"}, {"id": "c"}]}"#, "3 zones are configured and maxZones is 2"),
        (#"{"maxZones": 5}"#, "maxZones is 5, out of range (1 to 4)"),
    ])
    func aBadZoneIsRefusedNamingTheKey(json: String, message: String) {
        #expect {
            _ = try apply(json)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func zonesBuiltInCodeAreCheckedAsAConfigFileIs() {
        var configuration = RuntimeConfiguration()
        configuration.zones = (0..<5).map { ZoneSettings(id: "z\($0)") }
        #expect(throws: RuntimeError.zones("5 zones with 5 distinct ids; at most 4 zones, each id once")) {
            _ = try Runtime(configuration: configuration, logger: Logger(level: .error))
        }
        configuration.zones = [ZoneSettings(id: "a"), ZoneSettings(id: "a")]
        #expect(throws: RuntimeError.zones("2 zones with 1 distinct ids; at most 4 zones, each id once")) {
            _ = try Runtime(configuration: configuration, logger: Logger(level: .error))
        }
    }

    @Test func eachZoneKeepsItsVolumesSinksAndLastSourceAcrossARestart() throws {
        let path = dir.path + "/state.json"
        let saved: JSONValue = [
            "version": 1, "volumes": ["media": ["index": 30]],
            "zones": ["rear": ["volumes": ["media": ["index": 12]], "sinks": ["selected": ["Rear"]],
                               "lastSource": ["plugin": "org.example.library", "item": "sine-440", "position": 7]],
                      "attic": ["volumes": ["media": ["index": 1]]]],
        ]
        try saved.encoded().write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        configuration.state.path = path
        configuration.zones = [ZoneSettings(id: "front"), ZoneSettings(id: "rear")]
        let log = LogCapture()
        let runtime = try Runtime(configuration: configuration, logger: log.logger)
        let (front, rear) = (runtime.zones.list[0], runtime.zones.list[1])
        #expect(front.focus.session.volume.group(named: "media")?.index == 30)
        #expect(rear.focus.session.volume.group(named: "media")?.index == 12)
        #expect(rear.player.lastSource?.pluginID == "org.example.library")
        #expect(front.player.lastSource == nil)
        #expect(runtime.state.sinkSelections == [1: ["Rear"]])
        #expect(log.messages(from: "state").contains("the saved state of zone attic is skipped: no such zone is configured"))
        try rear.focus.changeVolume { groups throws(VolumeError) in try groups.set("media", index: 5) }
        runtime.shutdown()
        let rewritten = try JSONValue.parse(contentsOfFile: path)
        #expect(rewritten["volumes"]?["media"]?["index"] == 30)
        #expect(rewritten["zones"]?["rear"]?["volumes"]?["media"]?["index"] == 5)
        #expect(rewritten["zones"]?["rear"]?["lastSource"]?["item"] == "sine-440")
        #expect(rewritten["zones"]?["front"] == nil, "the primary zone's state is the top level")
    }

    @Test func aBadValueInAZonesStateSetsTheFileAsideNamingIt() throws {
        #expect {
            _ = try SavedState(["version": 1, "zones": ["rear": ["volumes": ["media": ["index": 500]]]]], maxQueueItems: 10)
        } throws: { error in
            "\(error)".contains("zones.rear.volumes.media.index is 500, out of range or of the wrong type")
        }
    }
}
