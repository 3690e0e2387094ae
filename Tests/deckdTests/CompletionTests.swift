import DeckTestSupport
import Foundation
import Testing

/// deckctl's shell completions (dist/completion), run by the real bash, zsh and fish against a
/// running deckd: commands and flags offline, app ids, volume groups, sink ids and method names
/// from the daemon the line's `--socket` names.
@Suite struct CompletionTests {
    static let folder = Paths.repoRoot + "/dist/completion"
    static let environment = ["PATH": Paths.binDir + ":/usr/bin:/bin"]

    /// What bash's completion function offers for `words` (the last one being completed).
    private func bash(_ words: [String]) throws -> [String] {
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = "source \(CompletionTests.folder)/deckctl.bash; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); "
            + "_deckctl; printf '%s\\n' \"${COMPREPLY[@]}\""
        return try runProgram("/bin/bash", ["-c", script], environment: CompletionTests.environment).output.split(separator: "\n").map(String.init)
    }

    /// What fish offers for the command line `line`.
    private func fish(_ line: String) throws -> [String] {
        let script = "source \(CompletionTests.folder)/deckctl.fish; complete -C'\(line)'"
        return try runProgram("/usr/bin/fish", ["-c", script], environment: CompletionTests.environment).output
            .split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    /// compinit's dump, shared by the zsh runs of one test.
    private let dump = TemporaryDirectory()

    /// What zsh's completion system offers when Tab is pressed after `line`, in an interactive zsh.
    /// (A pseudo-terminal on a loaded machine now and then hands back nothing: asked up to three times.)
    private func zsh(_ line: String) throws -> [String] {
        for _ in 0..<3 {
            let dir = TemporaryDirectory()
            let out = dir.path + "/offered"
            _ = try runProgram("/usr/bin/timeout", ["90", "/usr/bin/zsh", Paths.repoRoot + "/Tests/Fixtures/zsh-complete.zsh",
                                                     CompletionTests.folder, line, out, dump.path + "/zcompdump"],
                               environment: CompletionTests.environment)
            let offered = ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
            if !offered.isEmpty { return offered }
        }
        return []
    }

    @Test func eachShellCompletesFromTheRunningDeckd() throws {
        let deckd = try DeckdProcess.firstParty()
        let socket = ["deckctl", "--socket", deckd.socket]
        let line = "deckctl --socket \(deckd.socket) "

        #expect(try bash(["deckctl", "st"]) == ["status", "stop"])
        #expect(try bash(["deckctl", "--j"]) == ["--json"])
        #expect(try bash(socket + ["launch", ""]).contains("org.deck.tone"))
        #expect(try bash(socket + ["volume", "me"]) == ["media"])
        #expect(try bash(socket + ["volume", "media", "m"]) == ["mute"])
        #expect(try bash(socket + ["sinks", "select", ""]).contains("1"))
        #expect(try bash(socket + ["call", "session.g"]) == ["session.get"])
        #expect(try bash(socket + ["events", "ui"]) == ["ui.changed"])

        #expect(Set(try fish("deckctl st")) == ["status", "stop"])
        #expect(try fish(line + "launch ").contains("org.deck.tone"))
        #expect(try fish(line + "volume ").contains("navigation"))
        #expect(try fish(line + "call nowPlaying.").contains("nowPlaying.artwork"))
        #expect(Set(try fish(line + "display --driving ")) == ["on", "off"])

        #expect(Set(try zsh("deckctl st")) == ["status", "stop"])
        #expect(Set(try zsh(line + "launch ")) == ["org.deck.prompts", "org.deck.tone"])
        #expect(try zsh(line + "volume ").contains("safety"))
        #expect(try zsh(line + "call player.se").contains("player.seek"))
        #expect(deckd.stop() == 0)
    }

    /// A `--zone` on the line, before the command or after it, completes that zone's sinks, not
    /// every zone's; the global options after the command are not counted as its arguments.
    @Test func aZoneOnTheLineCompletesThatZonesSinks() throws {
        let dir = TemporaryDirectory()
        let config = dir.path + "/zones.json"
        try #"{"zones": [{"id": "front", "name": "Front seats", "sinks": ["Front"]}, {"id": "rear", "name": "Rear seats", "sinks": ["Rear"]}]}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        let deckd = try DeckdProcess.firstParty(["--config", config, "--state", "none",
                                                 "--sink", "file:\(dir.path)/front.opus?name=Front",
                                                 "--sink", "file:\(dir.path)/rear.opus?name=Rear"])
        let socket = ["deckctl", "--socket", deckd.socket]
        let line = "deckctl --socket \(deckd.socket) --zone rear "

        #expect(try bash(socket + ["sinks", "select", ""]) == ["all", "1", "2", "--help"])
        #expect(try bash(socket + ["--zone", "rear", "sinks", "select", ""]) == ["all", "2", "--help"])
        #expect(try bash(socket + ["--zone", ""]) == ["front", "rear"])
        #expect(Set(try fish(line + "sinks select ")) == ["all", "2"])
        #expect(Set(try zsh(line + "sinks select ")) == ["all", "2"])

        let after = "deckctl sinks --socket \(deckd.socket) select --zone rear --json "
        #expect(try bash(["deckctl", "sinks", "--socket", deckd.socket, "select", "--zone", "rear", "--json", ""]) == ["all", "2", "--help"])
        #expect(try bash(socket + ["sinks", "select", "--zone", ""]) == ["front", "rear"])
        #expect(try bash(socket + ["launch", "--timeout", "5", ""]).contains("org.deck.tone"))
        #expect(try bash(socket + ["launch", "--timeout", ""]).isEmpty)
        #expect(Set(try fish(after)) == ["all", "2"])
        #expect(Set(try fish("deckctl --socket \(deckd.socket) launch --zone ")) == ["front", "rear"])
        #expect(Set(try zsh(after)) == ["all", "2"])
        #expect(Set(try zsh("deckctl launch --socket \(deckd.socket) --json ")) == ["org.deck.prompts", "org.deck.tone"])
        #expect(deckd.stop() == 0)
    }

    /// A deckd that does not answer (stopped) holds no shell's prompt: each asks it with a 2 s
    /// `--timeout` and completes the static words; `--timeout`'s value is not taken for the command.
    @Test func aStoppedDeckdDoesNotHoldTheCompletion() throws {
        let deckd = try DeckdProcess.firstParty()
        let socket = ["deckctl", "--socket", deckd.socket]
        #expect(try bash(["deckctl", "--ti"]) == ["--timeout"])
        #expect(try bash(socket + ["--timeout", "5", "st"]) == ["status", "stop"])
        #expect(Set(try fish("deckctl --timeout 5 display --driving ")) == ["on", "off"])
        kill(deckd.process.processIdentifier, SIGSTOP)
        defer { kill(deckd.process.processIdentifier, SIGCONT) }
        let started = Date()
        #expect(try bash(socket + ["launch", ""]) == ["--help"])
        #expect(try fish("deckctl --socket \(deckd.socket) launch ").isEmpty)
        #expect(Date().timeIntervalSince(started) < 10, "each shell gave up after 2 s")
        kill(deckd.process.processIdentifier, SIGCONT)
        #expect(deckd.stop() == 0)
    }

    /// With no deckd to ask, commands still complete and nothing else is printed.
    @Test func withoutADeckdOnlyTheStaticWordsComplete() throws {
        let dir = TemporaryDirectory()
        let absent = ["deckctl", "--socket", dir.path + "/none.sock"]
        #expect(try bash(absent + ["launch", ""]) == ["--help"])
        #expect(try bash(absent + ["ev"]) == ["events"])
        #expect(try fish("deckctl --socket \(dir.path)/none.sock launch ").isEmpty)
    }
}
