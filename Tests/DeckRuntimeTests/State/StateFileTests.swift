import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime
@testable import DeckState

/// The state file: atomic, debounced, and never fatal when torn or corrupt.
@Suite struct StateFileTests {
    let dir = TemporaryDirectory()

    @Test func savesAreDebouncedIntoOneWriteAndReadBack() throws {
        let loop = try EventLoop()
        let log = LogCapture()
        let file = try StateFile(path: dir.path + "/state.json", delayMilliseconds: 50, loop: loop, logger: log.logger)
        for index in 0..<100 { file.save(["version": 1, "n": .int(Int64(index))]) }
        #expect(turnLoop(loop, seconds: 2) { file.writes == 1 })
        file.close()
        #expect(file.writes == 1)
        #expect(file.load() == ["version": 1, "n": 99])
        var info = stat()
        stat(dir.path + "/state.json", &info)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["state.json"])  // no temporary left
    }

    @Test(arguments: ["{\"version\": 1, \"lastSource\": ", "[1, 2]", "\u{0}\u{0}\u{0}"])
    func aTornOrCorruptFileIsSetAsideAndReported(content: String) throws {
        let path = dir.path + "/state.json"
        try content.write(toFile: path, atomically: false, encoding: .utf8)
        let log = LogCapture()
        let file = try StateFile(path: path, delayMilliseconds: 0, loop: try EventLoop(), logger: log.logger)
        #expect(file.load() == nil)
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(kept.count == 1 && kept[0].hasPrefix("state.json.corrupt-"))
        #expect(try String(contentsOfFile: dir.path + "/" + kept[0], encoding: .utf8) == content)
        #expect(log.all.contains { $0.level == .warning && $0.message.contains("starting without saved state (the file is kept as") })
        file.close()
    }

    @Test func aMissingFileIsAFirstStartNotAWarning() throws {
        let log = LogCapture()
        let file = try StateFile(path: dir.path + "/state.json", delayMilliseconds: 0, loop: try EventLoop(), logger: log.logger)
        #expect(file.load() == nil)
        #expect(log.all.filter { $0.level == .warning }.isEmpty)
        file.close()
    }

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
}
