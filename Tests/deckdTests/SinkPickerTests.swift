import DeckTestSupport
import Foundation
import Testing
@testable import DeckRuntime

/// The output picker through deckctl: named sinks, choosing where app audio goes, pinned
/// contexts, bad choices, and the choice surviving a restart.
@Suite struct SinkPickerTests {
    let dir = TemporaryDirectory()

    func daemon(state: String) throws -> DeckdProcess {
        let config = dir.path + "/deck.json"
        try #"{"pins": {"navigation": "Cabin", "systemSound": "Cabin"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        return try DeckdProcess.firstParty(["--config", config, "--state", state, "--overwrite-files",
                                            "--sink", "file:\(dir.path)/cabin.opus?name=Cabin&kind=speakers",
                                            "--sink", "file:\(dir.path)/rear.opus?name=Rear%20seats&kind=headphones"])
    }

    @Test func deckctlChoosesWhereAppAudioGoesAndTheChoiceSurvivesARestart() throws {
        let state = dir.path + "/state.json"
        var deckd = try daemon(state: state)
        var sinks = try deckd.deckctl(["sinks"]).output.split(separator: "\n").map(String.init)
        #expect(sinks.count == 2)
        #expect(sinks[0].hasPrefix("1  Cabin  file:\(dir.path)/cabin.opus  speakers  app audio  pinned: navigation, systemSound  "))
        #expect(sinks[1].hasPrefix("2  Rear seats  file:\(dir.path)/rear.opus  headphones  app audio  "))

        let chosen = try deckd.deckctl(["sinks", "select", "2"])
        #expect(chosen.status == 0)
        sinks = chosen.output.split(separator: "\n").map(String.init)
        #expect(sinks[0].hasPrefix("1  Cabin  file:\(dir.path)/cabin.opus  speakers  pinned: navigation, systemSound  "))
        #expect(sinks[1].hasPrefix("2  Rear seats  file:\(dir.path)/rear.opus  headphones  app audio  "))
        let json = try JSONValue.parse(try deckd.deckctl(["--json", "sinks"]).output)
        #expect(json.arrayValue?.map { $0["selected"] } == [false, true])
        #expect(json.arrayValue?.first?["pinned"] == ["navigation", "systemSound"])

        #expect(try deckd.deckctl(["sinks", "select", "9"]) == (1, "deckctl: -32004 Command failed: no sink with id 9\n"))
        #expect(try deckd.deckctl(["sinks", "select", "rear"]).status == 2)
        let empty = try deckd.deckctl(["call", "sinks.select", #"{"ids":[]}"#])
        #expect(empty.status == 1)
        #expect(empty.output.contains("\"ids\" must be a non-empty array of sink ids (omit it for every sink)"))
        // An id spelt with a sign or zeros is still that id; one that cannot be is named by its place.
        #expect(try deckd.deckctl(["sinks", "select", "+2", "002"]).output.contains("2  Rear seats  file:\(dir.path)/rear.opus  headphones  app audio  "))
        #expect(try deckd.deckctl(["sinks", "select", "2", "-1"])
                == (1, "deckctl: -32602 Invalid params: \"ids\"[1] is not a sink id: ids are whole numbers from 0 (sinks.list lists them)\n"))
        deckd.process.terminate()
        deckd.process.waitUntilExit()
        let saved = try JSONValue.parse(contentsOfFile: state)
        #expect(saved["sinks"] == ["selected": ["Rear seats"]])

        deckd = try daemon(state: state)
        #expect(deckd.waitForLog("app audio goes to Rear seats, as chosen before"))
        #expect(try JSONValue.parse(try deckd.deckctl(["--json", "sinks"]).output).arrayValue?.map { $0["selected"] } == [false, true])
        #expect(try deckd.deckctl(["sinks", "select", "all"]).status == 0)
        #expect(try JSONValue.parse(try deckd.deckctl(["--json", "sinks"]).output).arrayValue?.map { $0["selected"] } == [true, true])
    }
}
