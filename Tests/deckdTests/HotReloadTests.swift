import DeckTestSupport
import Foundation
import Testing

/// `deckd --watch` and `apps.reload`: a plugin rebuilt while it plays is loaded again and plays
/// on from where it was; a rebuild the runtime refuses is reported and loaded once it is fixed.
@Suite struct HotReloadTests {
    /// Puts a library built with `defines` into `bundle` as a build would: written aside, renamed in.
    private func rebuild(_ bundle: String, defines: [String], in dir: String) throws {
        let scratch = dir + "/scratch-\(UUID().uuidString)"
        let built = try Fixture.bundle(in: scratch, defines: defines)
        rename(built + "/libfixture.so", bundle + "/libfixture.so")
    }

    /// The fixture's bundle in `dir`/plugins and a deckd watching it.
    private func watching(in dir: TemporaryDirectory, _ extra: [String] = []) throws -> (bundle: String, deckd: DeckdProcess) {
        let plugins = dir.path + "/plugins"
        let bundle = try Fixture.bundle(in: plugins)
        _ = try runProgram("/bin/chmod", ["-R", "go-w,o+rX", plugins])
        let deckd = try DeckdProcess(["--plugins", plugins, "--state", "none", "--sink", "file:\(dir.path)/out.opus", "--watch"] + extra)
        #expect(deckd.waitForLog("watching the bundles"), "\(deckd.log)")
        return (bundle, deckd)
    }

    @Test func aBundleRebuiltWhileItPlaysIsReloadedAndPlaysOnFromWhereItWas() throws {
        let dir = TemporaryDirectory()
        let (bundle, deckd) = try watching(in: dir)
        _ = try deckd.deckctl(["launch", "org.deck.test.fixture", "sine-440"])
        try deckd.waitForFrames(150)

        try rebuild(bundle, defines: ["FIXTURE_DURATION=90"], in: dir.path)
        #expect(deckd.waitForLog("org.deck.test.fixture reloaded from"), "\(deckd.log)")
        #expect(deckd.waitForLog("resuming org.deck.test.fixture sine-440 at "), "\(deckd.log)")
        let at = deckd.log.components(separatedBy: "resuming org.deck.test.fixture sine-440 at ").last?.prefix { $0.isNumber }
        #expect((2...10).contains(Int(at ?? "") ?? 0), "its last item, from where it was (3 s and more in): \(deckd.log)")
        let deadline = Date().addingTimeInterval(5)
        var playing = ""
        while Date() < deadline, !playing.contains("1:30") { playing = try deckd.deckctl(["now-playing"]).output; usleep(100_000) }
        #expect(playing.contains("sine-440") && playing.contains("playing") && playing.contains("/ 1:30"), "the new code plays: \(playing)")
        #expect(try deckd.deckctl(["apps"]).output.contains("org.deck.test.fixture  1.0.0  active"))
        #expect(deckd.stop() == 0)
    }

    /// A host that crashes as its bundle changes (a library copied over in place changes the code
    /// under it) is not left disabled, as it would be without `--watch`: the changed bundle is
    /// loaded once it holds still and plays on from where it was.
    @Test func aHostThatCrashesAsItsBundleChangesIsLoadedAgainAndPlaysOn() throws {
        let dir = TemporaryDirectory()
        let (bundle, deckd) = try watching(in: dir, ["--isolation", "process"])
        _ = try deckd.deckctl(["launch", "org.deck.test.fixture", "sine-440"])
        try deckd.waitForFrames(150)
        let host = try #require(try deckd.apps().first { $0["id"]?.stringValue == "org.deck.test.fixture" }?["pid"]?.intValue)
        try rebuild(bundle, defines: ["FIXTURE_DURATION=90"], in: dir.path)
        kill(pid_t(host), SIGSEGV)  // as the old code, changed under it, would
        #expect(deckd.waitForLog("org.deck.test.fixture crashed: its process"), "\(deckd.log)")
        #expect(deckd.waitForLog("resuming org.deck.test.fixture sine-440 at "), "\(deckd.log)")
        #expect(!deckd.log.contains("stays disabled") && !deckd.log.contains("already loaded"), "\(deckd.log)")
        #expect(try deckd.deckctl(["apps"]).output.contains("org.deck.test.fixture  1.0.0  active"), "\(deckd.log)")
        #expect(try deckd.deckctl(["now-playing"], seconds: 5, when: { $0.contains("/ 1:30") && $0.contains("playing") }).contains("sine-440"),
                "the new code plays")
        #expect(deckd.stop() == 0)
    }

    /// A build that removes the bundle before it writes the new one (a clean build) does not stop
    /// the plugin: it plays on as loaded meanwhile, and the new bundle is reloaded from where it was.
    @Test func aBundleTakenAwayPlaysOnAsLoadedAndIsReloadedOnceBack() throws {
        let dir = TemporaryDirectory()
        let (bundle, deckd) = try watching(in: dir)
        _ = try deckd.deckctl(["launch", "org.deck.test.fixture", "sine-440"])
        try deckd.waitForFrames(150)
        #expect(rename(bundle, dir.path + "/removed") == 0)
        #expect(deckd.waitForLog("org.deck.test.fixture's bundle is taken away (manifest.json is gone, libfixture.so is gone): "
                                 + "it runs on as loaded"), "\(deckd.log)")
        usleep(1_200_000)  // more than two of the watcher's checks
        #expect(try deckd.deckctl(["apps"]).output.contains("org.deck.test.fixture  1.0.0  active"), "\(deckd.log)")
        #expect(try deckd.deckctl(["now-playing"]).output.contains("playing"), "\(deckd.log)")

        let built = try Fixture.bundle(in: dir.path + "/scratch", defines: ["FIXTURE_DURATION=90"])
        _ = try runProgram("/bin/chmod", ["-R", "go-w,o+rX", built])
        #expect(rename(built, bundle) == 0)
        #expect(deckd.waitForLog("resuming org.deck.test.fixture sine-440 at "), "\(deckd.log)")
        #expect(!deckd.log.contains("no bundle there") && !deckd.log.contains("was not reloaded"), "\(deckd.log)")
        #expect(try deckd.deckctl(["now-playing"], seconds: 5, when: { $0.contains("/ 1:30") && $0.contains("playing") }).contains("sine-440"),
                "the new code plays")
        #expect(deckd.stop() == 0)
    }

    @Test func aRefusedRebuildIsReportedAndLoadedOnceFixed() throws {
        let dir = TemporaryDirectory()
        let (bundle, deckd) = try watching(in: dir)
        let manifest = try String(contentsOfFile: bundle + "/manifest.json", encoding: .utf8)

        try "{\"id\": \"org.deck.test.fixture\",".write(toFile: bundle + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(deckd.waitForLog("org.deck.test.fixture was not reloaded: manifest.json is not valid JSON"), "\(deckd.log)")
        #expect(!(try deckd.deckctl(["apps"]).output.contains("org.deck.test.fixture")))
        try manifest.write(toFile: bundle + "/manifest.json", atomically: true, encoding: .utf8)
        #expect(deckd.waitForLog("org.deck.test.fixture loaded from"), "\(deckd.log)")
        #expect(try deckd.deckctl(["apps"]).output.contains("org.deck.test.fixture  1.0.0  active"))

        // On demand: apps.reload, and its answer for an id nothing loaded.
        let reloaded = try deckd.deckctl(["call", "apps.reload", #"{"id":"org.deck.test.fixture"}"#])
        #expect(reloaded.status == 0 && reloaded.output.contains(#""state": "active""#), "\(reloaded.output)")
        let unknown = try deckd.deckctl(["call", "apps.reload", #"{"id":"org.example.none"}"#])
        #expect(unknown.status != 0 && unknown.output.contains("org.example.none"), "\(unknown.output)")
        #expect(deckd.stop() == 0)
    }
}
