import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckState

/// What the runtime keeps across restarts: restored whole at start, set aside whole when any of it
/// does not fit, saved again at shutdown.
@Suite struct StateKeeperTests {
    let dir = TemporaryDirectory()

    @Test func theRuntimeRestoresVolumesAndTheLastSourceWithoutPlaying() throws {
        let path = dir.path + "/state.json"
        let saved: JSONValue = [
            "version": 1,
            "volumes": ["media": ["index": 22, "muted": false], "navigation": ["index": 30, "muted": true], "nonsense": ["index": 3]],
            "lastSource": ["plugin": "org.example.radio", "item": "sine-550", "position": 42.5,
                           "queue": [["key": "sine-550", "title": "A"], ["key": "sine-660"]], "currentIndex": 0, "shuffle": "off", "repeat": "all"],
        ]
        try saved.encoded().write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        configuration.state.path = path
        let log = LogCapture()
        let runtime = try Runtime(configuration: configuration, logger: log.logger)
        #expect(runtime.session.volume.group(named: "media")?.index == 22)
        #expect(runtime.session.volume.group(named: "navigation")?.muted == true)
        let source = try #require(runtime.player.lastSource)
        #expect(source.pluginID == "org.example.radio")
        #expect(source.itemKey == "sine-550")
        #expect(source.position == 42.5)
        #expect(source.queue.items.map(\.key) == ["sine-550", "sine-660"])
        #expect(source.queue.repeatMode == .all)
        #expect(runtime.player.center.owner == nil)
        #expect(!runtime.session.isActive)
        runtime.shutdown()
        // Shutdown saves what it has: the same volumes and source.
        let rewritten = try JSONValue.parse(contentsOfFile: path)
        #expect(rewritten["volumes"]?["media"]?["index"] == 22)
        #expect(rewritten["lastSource"]?["item"] == "sine-550")
        #expect(rewritten["lastSource"]?["position"] == 42.5)
    }

    @Test func aStateFileOwnedBySomeoneElseStopsTheRuntimeNamingTheFix() throws {
        var configuration = RuntimeConfiguration()
        configuration.state.path = dir.path + "/state.json"
        _ = FileManager.default.createFile(atPath: dir.path + "/state.json", contents: Data("{}".utf8))
        chown(dir.path + "/state.json", 65_534, 65_534)
        #expect(throws: RuntimeError.state(.unsafe("the state file \(dir.path)/state.json is owned by uid 65534, not by you (uid \(geteuid())); "
                                                    + "remove it or run 'chown \(geteuid()) \(dir.path)/state.json'"))) {
            try Runtime(configuration: configuration, logger: LogCapture().logger)
        }
    }

    @Test(arguments: [
        (#"{"version":2}"#, "version is 2, not 1"),
        (#"{"version":1,"volumes":{"media":{"index":9223372036854775807}}}"#, "volumes.media.index is 9223372036854775807, out of range or of the wrong type"),
        (#"{"version":1,"volumes":{"media":{"index":-1}}}"#, "volumes.media.index is -1, out of range or of the wrong type"),
        (#"{"version":1,"lastSource":{"plugin":"a","position":-1}}"#, "lastSource.position is -1, out of range or of the wrong type"),
        (#"{"version":1,"lastSource":{"plugin":"a","queue":[{"key":"x","duration":1e300}]}}"#,
         "lastSource.queue[0].duration is 1e+300, out of range or of the wrong type"),
        (#"{"version":1,"lastSource":{"plugin":"a","queue":[{"key":"x"}],"currentIndex":5}}"#, "lastSource.queue: "),
        (#"{"version":1,"lastSource":{"plugin":"a","currentIndex":9223372036854775807}}"#, "lastSource.queue: "),
        (#"{"version":1,"sinks":{"selected":[1]}}"#, "sinks.selected is not a list of names"),
        (#"{"version":1,"lastSource":{"plugin":"a","item":"\#(String(repeating: "i", count: 4_097))"}}"#, "lastSource.item is \"iii"),
        (#"{"version":1,"lastSource":{"plugin":"\#(String(repeating: "p", count: 256))"}}"#, "lastSource.plugin is not an app id"),
    ])
    func aDocumentThatParsesButDoesNotFitIsSetAsideAndTheRuntimeStartsFresh(document: String, reason: String) throws {
        let path = dir.path + "/state.json"
        try document.write(toFile: path, atomically: true, encoding: .utf8)
        var configuration = RuntimeConfiguration()
        configuration.state.path = path
        let log = LogCapture()
        let runtime = try Runtime(configuration: configuration, logger: log.logger)
        #expect(runtime.player.lastSource == nil)
        #expect(runtime.session.volume.group(named: "media")?.index == 40)
        #expect(log.all.contains { $0.level == .warning && $0.message.contains(reason) && $0.message.contains("starting without saved state") })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).contains { $0.hasPrefix("state.json.corrupt-") })
        runtime.shutdown()
    }
}
