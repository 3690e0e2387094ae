import DeckBase
import DeckTestSupport
import Foundation
import Testing
@testable import DeckState

/// The state file: atomic, debounced, and never fatal when torn or corrupt.
@Suite struct StateFileTests {
    let dir = TemporaryDirectory()

    /// On virtual time: nothing is written before the delay has passed since the first change.
    @Test func savesAreDebouncedIntoOneWriteAndReadBack() throws {
        let time = VirtualScheduler()
        let log = LogCapture()
        let file = try StateFile(path: dir.path + "/state.json", delayMilliseconds: 50, scheduler: time, logger: log.logger)
        for index in 0..<100 {
            file.save(["version": 1, "n": .int(Int64(index))])
            if index < 49 { time.advance(by: 1) }
        }
        #expect(file.writes == 0, "49 ms after the first change")
        time.advance(by: 1)
        #expect(waitUntil(seconds: 10) { file.writes == 1 }, "written (on the writer's thread) once the delay passed")
        time.advance(by: 1_000)
        file.close()
        #expect(file.writes == 1, "every change folded into the one write")
        #expect(file.load() == ["version": 1, "n": 99])
        var info = stat()
        stat(dir.path + "/state.json", &info)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".state.json.lock", "state.json"])  // no temporary left
    }

    @Test(arguments: ["{\"version\": 1, \"lastSource\": ", "[1, 2]", "\u{0}\u{0}\u{0}"])
    func aTornOrCorruptFileIsSetAsideAndReported(content: String) throws {
        let path = dir.path + "/state.json"
        try content.write(toFile: path, atomically: false, encoding: .utf8)
        let log = LogCapture()
        let file = try StateFile(path: path, delayMilliseconds: 0, scheduler: try EventLoop(), logger: log.logger)
        #expect(file.load() == nil)
        let kept = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0 != ".state.json.lock" }
        #expect(kept.count == 1 && kept[0].hasPrefix("state.json.corrupt-"))
        #expect(try String(contentsOfFile: dir.path + "/" + kept[0], encoding: .utf8) == content)
        #expect(log.all.contains { $0.level == .warning && $0.message.contains("starting without saved state (the file is kept as") })
        file.close()
    }

    @Test func aMissingFileIsAFirstStartNotAWarning() throws {
        let log = LogCapture()
        let file = try StateFile(path: dir.path + "/state.json", delayMilliseconds: 0, scheduler: try EventLoop(), logger: log.logger)
        #expect(file.load() == nil)
        #expect(log.all.filter { $0.level == .warning }.isEmpty)
        file.close()
    }

    @Test func onlyTheTemporaryFilesDeckNamedAreRemovedEachWithALogLine() throws {
        let path = dir.path + "/state.json"
        let others = ["state.json.backup", "state.json.abcdef", ".deck-tmp.state.json.toolong"]
        for name in others + [".deck-tmp.state.json.Ab12Cd"] {
            _ = FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8))
        }
        let log = LogCapture()
        let file = try StateFile(path: path, delayMilliseconds: 0, scheduler: try EventLoop(), logger: log.logger)
        #expect(file.load() == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == (others + [".state.json.lock"]).sorted())
        #expect(log.all.contains { $0.message == "removed \(dir.path)/.deck-tmp.state.json.Ab12Cd, left by a save that did not finish" })
        file.close()
    }

    @Test func aStateFolderOthersMayWriteIsRefusedNamingTheFix() throws {
        chmod(dir.path, 0o777)
        #expect(throws: StateFileError.unsafe("the state folder \(dir.path) is writable by group or others (mode 777); "
                                               + "run 'chmod go-w \(dir.path)' or choose another folder for state.path")) {
            try StateFile(path: dir.path + "/state.json", delayMilliseconds: 0, scheduler: try EventLoop(), logger: LogCapture().logger)
        }
        chmod(dir.path, 0o755)
    }

    /// `--state /tmp` once moved /tmp aside as a corrupt state file.
    @Test(arguments: ["a folder", "a symbolic link", "a FIFO"])
    func aPathThatIsNotARegularFileIsRefusedAndLeftAlone(kind: String) throws {
        let path = dir.path + "/state"
        switch kind {
        case "a folder": mkdir(path, 0o700)
        case "a symbolic link": symlink(dir.path + "/elsewhere.json", path)
        default: mkfifo(path, 0o600)
        }
        #expect(throws: StateFileError.notAFile("the state file \(path) is \(kind), not a regular file; name a file for state.path "
                                                 + "(deckd replaces it whole at each save)")) {
            try StateFile(path: path, delayMilliseconds: 0, scheduler: try EventLoop(), logger: LogCapture().logger)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["state"], "nothing was set aside")
    }
}
