import DeckTestSupport
import Foundation
import Testing

/// `deck-check`, the bundle validator: the first-party plugins and the examples pass clean, and
/// each misbehaving fixture is caught by the rule meant for it, in text and in JSON.
@Suite(.serialized) struct DeckCheckTests {  // (each run starts a deckd and host processes: one at a time)
    static let tool = Paths.binDir + "/deck-check"

    /// Runs deck-check with `--json`; its exit status and its findings as (rule, severity).
    private func check(_ arguments: [String]) throws -> (status: Int32, findings: [(rule: String, severity: String, reason: String)], raw: String) {
        let (status, output) = try runProgram(DeckCheckTests.tool, ["--json", "--seconds", "1"] + arguments, timeout: 120)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        let bundles = document?["bundles"] as? [[String: Any]] ?? []
        let findings = bundles.flatMap { $0["findings"] as? [[String: Any]] ?? [] }.map {
            (rule: $0["rule"] as? String ?? "", severity: $0["severity"] as? String ?? "", reason: $0["reason"] as? String ?? "")
        }
        return (status, findings, output)
    }

    @Test func theFirstPartyAppsAndTheCExamplesAreClean() throws {
        let plugins = Paths.binDir + "/plugins/"
        let result = try check([Paths.toneBundle, plugins + "Radio.deckplugin", plugins + "Prompts.deckplugin", Paths.helloBundle, Paths.stationsBundle])
        #expect(result.status == 0 && result.findings.allSatisfy { $0.severity == "info" }, "\(result.raw)")
        // What is said for information: Tone's long list cut when driving, Prompts' refusal of an empty sentence.
        #expect(result.findings.contains { $0.rule == "ui.limits" && $0.reason.contains("driving") }, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "lifecycle.default-item" && $0.reason.contains("give the sentence") }, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "render.time" && $0.reason.contains("render calls inline: p50") }, "\(result.raw)")
        // Hello declares audio and asks for no extension it is for; Stations plays.
        let entitled = try check(["--static", Paths.helloBundle, Paths.stationsBundle])
        #expect(entitled.findings.map(\.rule) == ["entitlements.used"] && entitled.findings[0].reason.contains("declares audio"), "\(entitled.raw)")
        let text = try runProgram(DeckCheckTests.tool, ["--static", Paths.toneBundle])
        #expect(text.status == 0 && text.output.contains("(org.deck.tone): clean") && text.output.contains("0 error(s), 0 warning(s)"), "\(text.output)")
    }

    @Test func aLibraryWithoutItsEntryIsCaughtBeforeItRuns() throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path, defines: ["FIXTURE_NO_ENTRY"])
        let result = try check([bundle])
        #expect(result.status == 1)
        #expect(result.findings.contains { $0.rule == "library.entry" && $0.severity == "error" && $0.reason.contains("deck_plugin_entry") }, "\(result.raw)")
        #expect(!result.findings.contains { $0.rule.hasPrefix("lifecycle") || $0.rule == "load.accepted" }, "nothing ran: \(result.raw)")
        let text = try runProgram(DeckCheckTests.tool, [bundle])
        #expect(text.output.contains("error [library.entry]") && text.output.contains("docs/plugin-guide.md#the-abi-c"), "\(text.output)")
    }

    @Test func aWrongABIAWritableManifestAndStrayExportsAreCaught() throws {
        let dir = TemporaryDirectory()
        let wrong = try Fixture.bundle(in: dir.path, name: "Wrong", manifest: ["abi": 2])
        // The fixture with one helper left non-static: exported, as -fvisibility=hidden would have prevented.
        let source = dir.path + "/leaky.c"
        try "#include \"\(Paths.fixtureSource)\"\n#include <sys/socket.h>\nint fixture_helper(void) { return socket(AF_INET, SOCK_STREAM, 0); }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let open = try Fixture.bundle(in: dir.path, name: "Open", source: source)
        chmod(open + "/manifest.json", 0o666)
        let result = try check(["--static", wrong, open])
        #expect(result.status == 1)
        #expect(result.findings.contains { $0.rule == "manifest.abi" && $0.reason.contains("ABI 2") }, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "bundle.ownership" && $0.reason.contains("666") }, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "library.exports" && $0.severity == "warning" && $0.reason.contains("fixture_helper") },
                "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "permissions.network" && $0.reason.contains("connect") || $0.reason.contains("socket") }, "\(result.raw)")
        let skipped = try check(["--static", "--skip", "library.exports,bundle.ownership,permissions.network", open])
        #expect(skipped.status == 0 && skipped.findings.isEmpty, "\(skipped.raw)")
        // A file named in bytes that are not UTF-8 is looked at too.
        let latin = try Fixture.bundle(in: dir.path, name: "Latin")
        let name = Array((latin + "/Caf").utf8CString.dropLast()) + [CChar(bitPattern: 0xE9)] + Array(".png".utf8CString)
        let file = Glibc.open(name, O_CREAT | O_WRONLY, 0o644)
        #expect(file >= 0 && fchmod(file, 0o666) == 0)
        close(file)
        let caught = try check(["--static", "--only", "bundle.ownership", latin])
        #expect(caught.status == 1 && caught.findings.count == 1 && caught.findings[0].reason.contains("666"), "\(caught.raw)")
        #expect(caught.raw.contains("Latin.deckplugin/Caf\u{FFFD}.png"), "\(caught.raw)")
    }

    @Test func aLibraryLinkingALocalServicesClientDeclaresServices() throws {
        let dir = TemporaryDirectory()
        let source = dir.path + "/journal.c"
        try "#include \"\(Paths.fixtureSource)\"\n#include <systemd/sd-journal.h>\nint fixture_log(void) { return sd_journal_print(6, \"hi\"); }\n"
            .write(toFile: source, atomically: true, encoding: .utf8)
        let undeclared = try Fixture.bundle(in: dir.path, name: "Undeclared", source: source, libraries: ["systemd"])
        let declared = try Fixture.bundle(in: dir.path, name: "Declared", manifest: ["permissions": ["services"]], source: source, libraries: ["systemd"])
        let warned = try check(["--static", "--only", "permissions.services", undeclared])
        #expect(warned.findings.count == 1 && warned.findings[0].severity == "warning" && warned.findings[0].reason.contains("libsystemd.so.0"), "\(warned.raw)")
        let clean = try check(["--static", "--only", "permissions.services", declared])
        #expect(clean.status == 0 && clean.findings.isEmpty, "\(clean.raw)")
    }

    @Test(arguments: [("nan", "render.invalid"), ("loud", "render.clipping"), ("silence", "render.silent"), ("underrun", "render.underrun"),
                      ("denormal", "render.denormal"), ("stall", "render.deadline"), ("segv", "lifecycle.survives"), ("sine-440", "focus.loss")])
    func aMisbehavingRenderIsCaughtInTheRun(item: String, rule: String) throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path)
        let result = try check(["--item", item, "--only", rule, bundle])
        #expect(result.findings.contains { $0.rule == rule }, "\(item): \(result.raw)")
        #expect(result.status == (["render.invalid", "lifecycle.survives"].contains(rule) ? 1 : 0), "errors fail the run, warnings do not: \(result.raw)")
        // The counters are judged over --seconds (1 here) of its frames, however late a busy machine started it.
        if ["render.invalid", "render.clipping", "render.denormal"].contains(rule) {
            let judged = result.findings.first { $0.rule == rule }?.reason.split(separator: " ").dropFirst(3).first.flatMap { Int($0) }
            #expect(judged ?? 0 >= 50, "\(result.raw)")
        }
    }

    /// A render fed by a thread of its own that makes the audio in real time: rendered with
    /// `deckd --freewheel`, one that returns what is there is mostly silence (render.freewheel); one
    /// that waits for its thread while the host is freewheeling (`is_freewheeling`) is not.
    @Test(arguments: [("produced", true), ("produced-waits", false)])
    func aRenderThatDoesNotWaitForItsOwnThreadInFreewheelIsCaught(item: String, caught: Bool) throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path)
        let result = try check(["--item", item, "--only", "render.freewheel,render.silent", bundle])
        #expect(result.findings.contains { $0.rule == "render.freewheel" && $0.severity == "warning" } == caught, "\(result.raw)")
        #expect(!result.findings.contains { $0.rule == "render.silent" }, "it plays in real time: \(result.raw)")
        #expect(result.status == 0, "a warning does not fail the run: \(result.raw)")
    }

    /// A render that stalls once in its host process: the frames it delivered after the mix's
    /// deadline are told (render.late), not judged as frames it did not fill.
    @Test func framesAHostDeliveredLateAreToldNotJudgedAsUnfilled() throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path)
        let result = try check(["--item", "stall", "--only", "render.underrun,render.late", bundle])
        #expect(result.status == 0, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "render.late" && $0.severity == "info" && $0.reason.contains("frames its host process delivered") },
                "\(result.raw)")
        #expect(!result.findings.contains { $0.rule == "render.underrun" }, "\(result.raw)")
    }

    /// Render times asked for and not measured (the inline runtime died in its first cycle) are
    /// said with the reason, not passed over as if the renders were fine.
    @Test func renderTimesThatCouldNotBeMeasuredAreSaidNotPassed() throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path)
        let result = try check(["--item", "segv", "--only", "render.time,render.deadline", bundle])
        for rule in ["render.time", "render.deadline"] {
            #expect(result.findings.contains { $0.rule == rule && $0.reason.hasPrefix("not judged") && $0.reason.contains("cycle 1") }, "\(rule): \(result.raw)")
        }
    }

    /// Stopping on a transient loss or a duck, a thread and a pipe or a process left after destroy, a second
    /// instance that fails in the same process, a thread running library code after destroy (the
    /// inline runtime crashes), a loop-thread call made from a thread of its own: each caught by its
    /// rule; the plain fixture passes them all.
    @Test(arguments: [("FIXTURE_STOPS_ON_TRANSIENT", "focus.transient"), ("FIXTURE_STOPS_ON_DUCK", "focus.duck"),
                      ("FIXTURE_LEAK", "lifecycle.leftovers"), ("FIXTURE_HELPER", "lifecycle.leftovers"), ("FIXTURE_ONCE", "lifecycle.repeat"),
                      ("FIXTURE_LINGER", "lifecycle.repeat"),
                      ("FIXTURE_WRONG_THREAD", "threads.host-calls"), ("", "")])
    func focusReactionsAndRepeatedLifecyclesAreJudged(define: String, rule: String) throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path, defines: define.isEmpty ? [] : [define])
        let rules = "focus.transient,focus.duck,lifecycle.leftovers,lifecycle.repeat,threads.host-calls"
        let result = try check(["--item", "sine-440", "--only", rules, bundle])
        #expect(Set(result.findings.map(\.rule)) == (rule.isEmpty ? [] : [rule]), "\(define): \(result.raw)")
        #expect(result.status == (["lifecycle.repeat", "threads.host-calls"].contains(rule) ? 1 : 0), "errors fail the run, warnings do not: \(result.raw)")
        if define == "FIXTURE_LEAK" {
            let reasons = result.findings.map(\.reason)
            #expect(reasons.contains { $0.contains("2 thread(s) still run after destroy") }
                    && reasons.contains { $0.contains("4 descriptor(s) stay open after destroy") && $0.contains("pipe:") }
                    && reasons.contains { $0.contains("resident memory grew 16 MiB") || $0.contains("resident memory grew 15 MiB") }, "\(result.raw)")
        }
        if define == "FIXTURE_HELPER" {
            #expect(result.findings.map(\.reason) == ["destroy left 1 process(es) running (a setsid one or an orphan counts); ended them"], "\(result.raw)")
        }
        if define == "FIXTURE_LINGER" { #expect(result.findings.first?.reason.contains("the runtime process ended") == true, "\(result.raw)") }
    }

    /// A start that never returns, music played without now playing, a lock file left in its data
    /// folder that makes the next activation fail.
    @Test(arguments: [("", "block", "lifecycle.activate"), ("FIXTURE_NO_NOW_PLAYING", "sine-440", "nowplaying.published"),
                      ("FIXTURE_STALE_LOCK", "sine-440", "lifecycle.restart")])
    func aStartThatHangsAMissingNowPlayingAndAFailedRestartAreCaught(define: String, item: String, rule: String) throws {
        let dir = TemporaryDirectory()
        let bundle = try Fixture.bundle(in: dir.path, defines: define.isEmpty ? [] : [define])
        let result = try check(["--item", item, "--only", rule, bundle])
        #expect(result.findings.map(\.rule) == [rule], "\(result.raw)")
        #expect(result.status == (rule == "nowplaying.published" ? 0 : 1), "\(result.raw)")
    }

    /// The UI fixture (Tests/Fixtures/ui-plugin.c) built with `defines`.
    private func uiFixture(in dir: TemporaryDirectory, defines: [String]) throws -> String {
        try Fixture.bundle(in: dir.path, name: "UI", defines: defines, manifest: ["id": "org.deck.test.ui", "name": "UI fixture", "library": "libui.so"],
                           library: "libui.so", source: Paths.repoRoot + "/Tests/Fixtures/ui-plugin.c")
    }

    @Test func selectionsAndContentLoadsLeftUncompletedAreCaught() throws {
        let dir = TemporaryDirectory()
        let bundle = try uiFixture(in: dir, defines: ["UI_SLOW_LOAD"])
        let result = try check(["--only", "ui.handlers,content.loads", bundle])
        #expect(result.status == 0, "warnings: \(result.raw)")
        #expect(result.findings.contains { $0.rule == "ui.handlers" && $0.reason.contains("Slow station") }, "\(result.raw)")
        #expect(!result.findings.contains { $0.rule == "ui.handlers" && ($0.reason.contains("FM4") || $0.reason.contains("Oe1")) }, "\(result.raw)")
        #expect(result.findings.contains { $0.rule == "content.loads" && $0.reason.contains("Podcasts") }, "\(result.raw)")
        #expect(!result.findings.contains { $0.rule == "content.loads" && $0.reason.contains("Radio") }, "the tab read at once: \(result.raw)")
    }

    @Test func imagesLeftBehindEachTimeTheScreenIsSetAreCaught() throws {
        let dir = TemporaryDirectory()
        let bundle = try uiFixture(in: dir, defines: ["UI_IMAGE_LEAK"])
        let result = try check(["--only", "ui.images", bundle])
        #expect(result.status == 0, "a warning: \(result.raw)")
        #expect(result.findings.map(\.rule) == ["ui.images"], "\(result.raw)")
        #expect(result.findings.first?.reason.hasPrefix("it keeps 4 images (36 bytes) after the display attached 3 times more, 1 (9 bytes) before") == true,
                "\(result.raw)")
    }

    @Test func aBrokenManifestAMissingForeignOrUnreadableLibraryAndAMissingDependencyAreCaught() throws {
        let dir = TemporaryDirectory()
        let malformed = try Fixture.bundle(in: dir.path, name: "Malformed", manifestText: "{\"id\": \"org.deck.test.fixture\",")
        let missing = try Fixture.bundle(in: dir.path, name: "Missing", manifest: ["library": "libelsewhere.so"])
        let foreign = try Fixture.bundle(in: dir.path, name: "Foreign")
        try "not a library".write(toFile: foreign + "/libfixture.so", atomically: true, encoding: .utf8)
        chmod(foreign + "/libfixture.so", 0o600)
        // Linked against a library that is then removed.
        let gone = dir.path + "/libdeckgone.so"
        _ = try runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-o", gone, "-x", "c", "/dev/null"])
        let needy = dir.path + "/Needy.deckplugin"
        try FileManager.default.createDirectory(atPath: needy, withIntermediateDirectories: true)
        let linked = try runProgram("/usr/bin/cc", ["-std=c11", "-shared", "-fPIC", "-I", Paths.sdkInclude, "-o", needy + "/libfixture.so",
                                                    Paths.fixtureSource, "-L", dir.path, "-Wl,--no-as-needed", "-ldeckgone", "-lpthread", "-lm"])
        try #require(linked.status == 0, "\(linked.output)")
        try JSONSerialization.data(withJSONObject: Fixture.defaultManifest).write(to: URL(fileURLWithPath: needy + "/manifest.json"))
        try FileManager.default.removeItem(atPath: gone)
        // A FIFO in the library's place (which a plain read would wait on forever), and a folder.
        let piped = try Fixture.bundle(in: dir.path, name: "Piped"), foldered = try Fixture.bundle(in: dir.path, name: "Foldered")
        for (bundle, make) in [(piped, { mkfifo($0, 0o644) }), (foldered, { mkdir($0, 0o755) })] as [(String, (String) -> Int32)] {
            try FileManager.default.removeItem(atPath: bundle + "/libfixture.so")
            #expect(make(bundle + "/libfixture.so") == 0)
        }
        // Cross-built for another machine: its e_machine says which.
        let crossBuilt = try Fixture.bundle(in: dir.path, name: "CrossBuilt")
        var library = try [UInt8](Data(contentsOf: URL(fileURLWithPath: crossBuilt + "/libfixture.so")))
        (library[18], library[19]) = (243, 0)
        try Data(library).write(to: URL(fileURLWithPath: crossBuilt + "/libfixture.so"))
        let result = try check(["--static", malformed, missing, foreign, needy, piped, foldered, crossBuilt])
        #expect(result.status == 1)
        #expect(result.findings.filter { $0.rule == "library.elf" && $0.reason.hasPrefix("it is not a regular file") }.count == 2, "\(result.raw)")
        for (rule, fragment) in [("manifest.valid", "not valid JSON"), ("bundle.library", "libelsewhere.so"), ("library.elf", "not a 64-bit little-endian ELF shared library"),
                                 ("bundle.readable", "libfixture.so"), ("library.needed", "libdeckgone.so"),
                                 ("library.elf", "built for RISC-V (ELF machine 243); this machine is ")] {
            #expect(result.findings.contains { $0.rule == rule && $0.reason.contains(fragment) }, "\(rule): \(result.raw)")
        }
    }

    /// A call that holds the loop for a second is a warning; one of 150 ms is told for information
    /// (on a loaded machine, a host process's round trips alone can take that long). The slow one
    /// sleeps 1.5 s, well over the 1 s line: on two loaded cores a host process's 1.1 s sleep was
    /// once measured as 999 ms.
    @Test func slowCallbacksAreReportedFromTheRuntimesLog() throws {
        let dir = TemporaryDirectory()
        let slow = try Fixture.bundle(in: dir.path, name: "Slow", defines: ["FIXTURE_SLOW_CALLBACK", "FIXTURE_SLOW_CALLBACK_MS=1500"])
        let result = try check(["--item", "sine-440", "--only", "calls.slow,calls.time", slow])
        #expect(result.status == 0 && result.findings.contains { $0.rule == "calls.slow" && $0.severity == "warning" && $0.reason.contains("on the loop thread") },
                "\(result.raw)")
        let slowish = try Fixture.bundle(in: dir.path, name: "Slowish", defines: ["FIXTURE_SLOW_CALLBACK"])
        let told = try check(["--item", "sine-440", "--only", "calls.slow,calls.time", slowish])
        #expect(told.status == 0 && told.findings.contains { $0.rule == "calls.time" && $0.severity == "info" && $0.reason.contains("on the loop thread") }
                && !told.findings.contains { $0.rule == "calls.slow" }, "\(told.raw)")
    }

    @Test func commandsThatFailAndAStartThatFailsAreCaught() throws {
        let dir = TemporaryDirectory()
        let failing = try Fixture.bundle(in: dir.path, name: "Failing", defines: ["FIXTURE_COMMAND_RESULT=DECK_COMMAND_FAILED"])
        let commands = try check(["--item", "sine-440", "--only", "commands.answered", failing])
        #expect(commands.status == 1 && commands.findings.contains { $0.rule == "commands.answered" && $0.reason.contains("pause") }, "\(commands.raw)")
        let broken = try Fixture.bundle(in: dir.path, name: "Broken", defines: ["FIXTURE_PLUGIN_INIT_FAILS"])
        let load = try check(["--only", "load.accepted", broken])
        #expect(load.status == 1 && load.findings.contains { $0.rule == "load.accepted" }, "\(load.raw)")
    }

    @Test func whatABundleSaysIsPrintedEscaped() throws {
        let dir = TemporaryDirectory()
        let hostile = try Fixture.bundle(in: dir.path, name: "Hostile", manifest: ["id": "org.deck\u{1B}[2J\nforged"])
        let text = try runProgram(DeckCheckTests.tool, ["--static", hostile])
        #expect(text.status == 1 && text.output.contains(#"org.deck\x1b[2J\nforged"#), "\(text.output)")
        #expect(!text.output.contains("\u{1B}"))
    }

    @Test func theRulesAreListedAndUnknownOnesRefused() throws {
        let (status, output) = try runProgram(DeckCheckTests.tool, ["--list-rules", "--json"])
        let rules = (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["rules"] as? [[String: Any]] ?? []
        #expect(status == 0 && rules.count >= 20, "\(output)")
        #expect(rules.allSatisfy { ($0["doc"] as? String ?? "").hasPrefix("docs/") && ["error", "warning", "info"].contains($0["severity"] as? String ?? "") })
        let refused = try runProgram(DeckCheckTests.tool, ["--only", "no.such.rule", Paths.toneBundle])
        #expect(refused.status == 2 && refused.output.contains("no rule \"no.such.rule\""), "\(refused.output)")
        // A choice that leaves nothing to check is refused, never reported clean.
        for (arguments, said) in [(["--only", ""], "--only needs rule ids, e.g. --only render.silent (see --list-rules)"),
                                  (["--skip", ","], "--skip needs rule ids, e.g. --skip render.silent (see --list-rules)"),
                                  (["--only", "render.silent", "--skip", "render.silent,render.clipping"], "--only and --skip leave no rule to check"),
                                  (["--static", "--only", "render.silent"], "--only and --skip leave no static rule to check (--static runs only those)"),
                                  (["--media", ""], "a media folder's path is empty"),
                                  (["--deckd", ""], "--deckd needs a value, not an empty one"),
                                  (["--item", ""], "--item needs a value, not an empty one"),
                                  (["--media", "/nonexistent/music"], "--media /nonexistent/music is not a folder (No such file or directory)"),
                                  (["--media", "/etc/passwd"], "--media /etc/passwd is not a folder"),
                                  (["--list-rules"], "--list-rules lists the rules and checks no bundle, not /nonexistent/Absent.deckplugin")] {
            let result = try runProgram(DeckCheckTests.tool, arguments + ["/nonexistent/Absent.deckplugin"])
            #expect(result.status == 2 && result.output.hasPrefix("deck-check: \(said)\n"), "\(arguments): \(result.output)")
        }
    }

    /// A media folder named relative to the working folder reaches the test runtime as that
    /// folder, not one relative to the runtime's config: the Library finds its track there.
    @Test func aRelativeMediaFolderIsTheOneInTheWorkingFolder() throws {
        let dir = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/music", withIntermediateDirectories: true)
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4", dir.path + "/music/a.flac"])
        _ = try runProgram("/bin/chmod", ["-R", "o+rX", dir.path])
        let run = try runProgram("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" --json --seconds 1 --media music --item \"$1/music/a.flac\" \"$3\"", "sh",
                                             dir.path, DeckCheckTests.tool, Paths.binDir + "/plugins/Library.deckplugin"], timeout: 120)
        #expect(run.status == 0 && !run.output.contains("the library is empty"), "\(run.output)")
    }

    /// A runtime that ends before it opens its socket is said at once, with how it ended and its
    /// last words, as a check that could not run (3), not after a 10 s wait with nothing to read.
    @Test func aRuntimeThatEndsAtStartIsNamedAtOnce() throws {
        let dir = TemporaryDirectory()
        let fake = dir.path + "/deckd"
        try "#!/bin/sh\necho 'deckd: the config is wrong' >&2\nexit 2\n".write(toFile: fake, atomically: true, encoding: .utf8)
        chmod(fake, 0o755)
        for (deckd, said) in [(fake, "deck-check: deckd did not open its socket (it exited with status 2):\ndeckd: the config is wrong\n"),
                              ("/bin/true", "deck-check: deckd did not open its socket (it exited with status 0); its log is empty\n")] {
            let started = Date()
            let result = try runProgram(DeckCheckTests.tool, ["--deckd", deckd, Paths.toneBundle])
            #expect(result.status == 3 && result.output.hasSuffix(said), "\(result.output)")
            #expect(Date().timeIntervalSince(started) < 5, "it did not wait out the 10 s")
        }
    }

    /// A path with no bundle is one finding that says so, not a cascade; an empty one is a usage error.
    @Test func aPathWithNoBundleIsSaidOnce() throws {
        let dir = TemporaryDirectory()
        try "".write(toFile: dir.path + "/File.deckplugin", atomically: true, encoding: .utf8)
        let result = try check([dir.path + "/Absent.deckplugin", dir.path + "/File.deckplugin"])
        #expect(result.status == 1)
        #expect(result.findings.map(\.reason) == ["no bundle here: No such file or directory",
                                                  "the bundle is not a folder (a bundle is NAME.deckplugin/ holding manifest.json and the library)"],
                "\(result.raw)")
        let empty = try runProgram(DeckCheckTests.tool, [""])
        #expect(empty.status == 2 && empty.output.hasPrefix("deck-check: a bundle's path is empty"), "\(empty.output)")
    }

    /// A report that cannot be written (a full disk) is a check that did not run, not a clean one.
    @Test func aReportThatCannotBeWrittenIsNoPass() throws {
        for arguments in [["--static", Paths.toneBundle], ["--json", "--static", Paths.toneBundle], ["--list-rules"]] {
            let result = try runProgram("/bin/sh", ["-c", "exec \"$@\" > /dev/full", "sh", DeckCheckTests.tool] + arguments)
            #expect(result.status == 3 && result.output == "deck-check: cannot write the report: No space left on device\n",
                    "\(arguments): \(result.status) \(result.output)")
        }
    }
}
