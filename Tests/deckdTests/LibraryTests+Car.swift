import DeckTestSupport
import Foundation
import Testing

extension LibraryTests {
    /// A deckd whose Library reads the generated library, keeping its data in `dir`/data.
    struct Car {
        let dir: TemporaryDirectory
        let deckd: DeckdProcess
        /// The server of Radio's station, when it has one, kept as long as the car.
        var icecast: IcecastServer?

        /// `config`: more members of the config object (`"nowPlaying": {…}`).
        init(dir: TemporaryDirectory = TemporaryDirectory(), folders: [String] = [LibraryTests.music], output: String = "out.opus",
             options: [String] = [], launcher: [String] = [], config: String = "") throws {
            self.dir = dir
            let folderList = folders.map { "\"\($0)\"" }.joined(separator: ", ")
            try #"{"dataDirectory": "data", "isolation": {"mediaFolders": [\#(folderList)]}\#(config.isEmpty ? "" : ", " + config)}"#
                .write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
            deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", Paths.binDir + "/plugins", "--state", "none",
                                      "--sink", "file:\(dir.path)/\(output)"] + options, launcher: launcher)
            guard deckd.waitForLog("deckd: ready") else { throw CommandFailure(description: "deckd did not get ready:\n\(deckd.log)") }
        }

        func deckctl(_ arguments: [String]) throws -> String { try deckd.deckctl(arguments).output }

        /// Gives Radio one station, `name` at `url`, in its data folder (Radio reads it as it appears).
        func addStation(_ name: String, url: String) throws {
            try FileManager.default.createDirectory(atPath: dir.path + "/data/org.deck.radio", withIntermediateDirectories: true)
            try RadioTests.write([(name, url, "Test")], to: dir.path + "/data/org.deck.radio/stations.json")
        }

        func waitFor(_ fragment: String, in arguments: [String], seconds: Double = 10) throws -> Bool {
            try output(of: arguments, seconds: seconds) { $0.contains(fragment) }.contains(fragment)
        }

        /// What deckctl `arguments` print once `condition` holds of it, polled for up to `seconds`.
        func output(of arguments: [String], seconds: Double = 10, when condition: (String) -> Bool) throws -> String {
            try deckd.deckctl(arguments, seconds: seconds, when: condition)
        }
    }
}
