import DeckRuntime
import DeckTestSupport
import Foundation
import Testing

/// A plugin in a host process, entitled only to `audio`, tries what a hostile third party would:
/// each attempt fails the way the integrator guide says. Run in the isolated pass only: inline, a
/// plugin is deckd itself.
@Suite struct SandboxTests {
    @Test func aHostilePluginCannotSteerTheRuntimeReadItsSecretsWriteOtherAppsOrOutliveItsApp() throws {
        let dir = TemporaryDirectory()
        let plugins = dir.path + "/plugins", drop = dir.path + "/drop", socket = dir.path + "/deck.sock"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: drop, withIntermediateDirectories: true)
        chmod(drop, 0o777)  // the one place the hostile plugin may write, for its grandchild's pid
        let victim = try Fixture.app(in: plugins, "Victim", id: "org.deck.test.victim")
        let manifest = try String(contentsOfFile: victim + "/manifest.json", encoding: .utf8)
        try Fixture.app(in: plugins, "Hostile", id: "org.deck.test.hostile",
                        defines: ["FIXTURE_SANDBOX_PROBE", "FIXTURE_SOCKET=\"\(socket)\"", "FIXTURE_VICTIM=\"\(victim)/manifest.json\"",
                                  "FIXTURE_PIDFILE=\"\(drop)/pid\""])
        let deckd = try DeckdProcess(["--plugins", plugins, "--socket", socket, "--state", "none", "--isolation", "process"],
                                     environment: ["DECK_SECRET": "s3cret"])
        #expect(deckd.waitForLog("sandbox: done: all tried"), "\(deckd.log)")
        let log = deckd.log
        #expect(log.contains("sandbox: control: refused"), "\(log)")
        #expect(log.contains("sandbox: environ: refused"))
        #expect(log.contains("sandbox: env: clean"))
        #expect(log.contains("sandbox: victim: refused"))
        #expect(!log.contains("FORGED"))
        #expect(try String(contentsOfFile: victim + "/manifest.json", encoding: .utf8) == manifest)
        // The owner still steers it: the refusal is for plugins' processes only.
        let owner = LineClient(path: socket)
        #expect(owner.call("runtime.info")?.contains(#""result""#) == true)

        var grandchild: pid_t = 0
        for _ in 0..<200 where grandchild == 0 {
            grandchild = pid_t((try? String(contentsOfFile: drop + "/pid", encoding: .utf8)) ?? "") ?? 0
            if grandchild == 0 { usleep(10_000) }
        }
        try #require(grandchild > 0)
        #expect(kill(grandchild, 0) == 0)  // alive while its app is
        #expect(owner.call("apps.unload", #"{"id":"org.deck.test.hostile"}"#, id: 2)?.contains(#""result":true"#) == true)
        let deadline = Date().addingTimeInterval(2)
        while kill(grandchild, 0) == 0 && Date() < deadline { usleep(10_000) }
        #expect(kill(grandchild, 0) != 0, "the setsid grandchild \(grandchild) outlived apps.unload")
        #expect(deckd.stop() == 0)
    }

    /// Without a uid of its own (deckd not root, or `isolation.uidBase` 0) the host still cannot use
    /// the control socket (deckd knows its descendants by their peer credentials), sees none of
    /// deckd's environment, and writes nowhere near deckd's output.
    @Test func onTheRuntimesOwnUidTheSocketStillRefusesPluginProcesses() throws {
        let dir = TemporaryDirectory()
        let plugins = dir.path + "/plugins", socket = dir.path + "/deck.sock"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        let victim = try Fixture.app(in: plugins, "Victim", id: "org.deck.test.victim")
        try Fixture.app(in: plugins, "Hostile", id: "org.deck.test.hostile",
                        defines: ["FIXTURE_SANDBOX_PROBE", "FIXTURE_SOCKET=\"\(socket)\"", "FIXTURE_VICTIM=\"\(victim)/manifest.json\"",
                                  "FIXTURE_PIDFILE=\"\(dir.path)/pid\""])
        try #"{"isolation": {"uidBase": 0}}"#.write(toFile: dir.path + "/deck.json", atomically: true, encoding: .utf8)
        let deckd = try DeckdProcess(["--config", dir.path + "/deck.json", "--plugins", plugins, "--socket", socket, "--state", "none",
                                      "--isolation", "process"], environment: ["DECK_SECRET": "s3cret"])
        #expect(deckd.waitForLog("sandbox: done: all tried"), "\(deckd.log)")
        #expect(deckd.log.contains("sandbox: control: refused ({\"error\":{\"code\":-32005"), "\(deckd.log)")
        #expect(deckd.log.contains("warning control: refused a connection: process"))
        #expect(deckd.log.contains("sandbox: env: clean"))
        #expect(!deckd.log.contains("FORGED"))
        #expect(deckd.stop() == 0)
        if let pid = pid_t((try? String(contentsOfFile: dir.path + "/pid", encoding: .utf8)) ?? "") { kill(pid, SIGKILL) }
    }
}
