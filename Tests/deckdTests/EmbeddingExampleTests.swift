import DeckTestSupport
import Foundation
import Testing

/// What an integrator does: `make install`, then build examples/embed-c with plain cc and
/// pkg-config against the installed SDK only, and run it, taking packets on the runtime's thread
/// and on the audio thread. Its Ogg files are judged by opusinfo and ffmpeg.
@Suite struct EmbeddingExampleTests {
    @Test func theInstalledSDKBuildsTheExampleWhichStreamsToneIntoAValidOggFile() throws {
        let prefix = TemporaryDirectory()
        var result = try runProgram("/usr/bin/make", ["-s", "-C", Paths.repoRoot, "install-files", "PREFIX=\(prefix.path)", "BIN=\(Paths.binDir)"])
        #expect(result.status == 0, "\(result.output)")
        let lib = prefix.path + "/lib"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: lib + "/libdeck.so") == "libdeck.so.0")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: lib + "/libdeck.so.0") == "libdeck.so.0.1.0")
        result = try runProgram("/usr/bin/readelf", ["-d", lib + "/libdeck.so.0.1.0"])
        #expect(result.output.contains("Library soname: [libdeck.so.0]"))
        result = try runProgram("/usr/bin/pkg-config", ["--cflags", "--libs", "deck"], environment: ["PKG_CONFIG_PATH": lib + "/pkgconfig"])
        #expect(result.output.contains("-I\(prefix.path)/include") && result.output.contains("-ldeck"))
        #expect(FileManager.default.fileExists(atPath: prefix.path + "/lib/deck/plugins/Tone.deckplugin/manifest.json"))
        #expect(FileManager.default.fileExists(atPath: prefix.path + "/bin/deckd"))

        let program = prefix.path + "/embed"
        result = try runProgram("/usr/bin/make", ["-s", "-C", Paths.repoRoot + "/examples/embed-c", "PKG_CONFIG_PATH=\(lib)/pkgconfig", "OUT=\(program)"]
                                   + (SanitizerPreload.linkFlags.isEmpty ? [] : ["CC=cc " + SanitizerPreload.linkFlags.joined(separator: " ")]))
        #expect(result.status == 0, "\(result.output)")
        // Packets taken on the runtime's thread, then (API 1.4) on the audio thread through the example's own ring.
        for flags in [[], ["--audio-thread"]] {
            let ogg = prefix.path + "/tone\(flags.count).opus"
            // Three seconds: a loaded machine may take one to launch Tone in its host process.
            result = try runProgram(program, flags + [prefix.path + "/lib/deck/plugins", ogg, "3"], environment: SanitizerPreload.environment, timeout: 30)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("apps.launch answered: {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":"))
            #expect(result.output.contains("event: session.changed"))
            #expect(result.output.contains("event: now playing Sine 440 Hz"))
            #expect(result.output.contains("destroyed: ok"))
            #expect(result.output.contains("(taken on the audio thread)") == !flags.isEmpty)
            #expect(!result.output.contains("the ring was full"))
            let info = try AudioAnalysis.opusinfo(ogg)
            #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
            #expect(info.output.contains("Logical stream 1 ended"))
            let audio = try AudioAnalysis.decodeWithFFmpeg(ogg)
            #expect(audio.frames > 48_000)
            #expect(abs(try AudioAnalysis.dominantFrequency(audio.left) - 440) < 3)
        }
    }

    /// An integrator's C program that calls back in from callbacks, reuses stale handles and
    /// compares every signal disposition before and after dlopen: each rule of runtime.h holds.
    @Test func libdeckRefusesReentryAndStaleHandlesAndLeavesSignalDispositionsAlone() throws {
        let dir = TemporaryDirectory()
        let program = dir.path + "/embed-hostile"
        var result = try runProgram("/usr/bin/cc", ["-std=c11", "-Wall", "-Wextra", "-Werror", "-I", Paths.sdkInclude, "-o", program,
                                                    Paths.repoRoot + "/Tests/Fixtures/embed-hostile.c", "-ldl"])
        #expect(result.status == 0, "\(result.output)")
        result = try runProgram(program, [Paths.binDir + "/libdeck.so"], environment: SanitizerPreload.environment, timeout: 60)
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("FAIL"), "\(result.output)")
        #expect(result.output.contains("ok: loading and using libdeck changed no signal disposition"))
        #expect(result.output.hasSuffix("done\n"))
    }

    /// The same program with and without libdeck linked in sees the same dispositions at main.
    @Test func linkingLibdeckChangesNoSignalDisposition() throws {
        let dir = TemporaryDirectory()
        // The build folder's libdeck.so carries the soname libdeck.so.0: link to it under that name.
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/libdeck.so.0", withDestinationPath: Paths.binDir + "/libdeck.so")
        try FileManager.default.createSymbolicLink(atPath: dir.path + "/libdeck.so", withDestinationPath: Paths.binDir + "/libdeck.so")
        let source = Paths.repoRoot + "/Tests/Fixtures/signal-dump.c"
        var result = try runProgram("/usr/bin/cc", ["-o", dir.path + "/plain", source])
        #expect(result.status == 0, "\(result.output)")
        result = try runProgram("/usr/bin/cc", ["-o", dir.path + "/linked", source, "-Wl,--no-as-needed", "-L", dir.path, "-ldeck",
                                                "-Wl,-rpath," + dir.path] + SanitizerPreload.linkFlags)
        #expect(result.status == 0, "\(result.output)")
        #expect(try runProgram("/usr/bin/readelf", ["-d", dir.path + "/linked"]).output.contains("[libdeck.so.0]"))
        let plain = try runProgram(dir.path + "/plain", [], environment: SanitizerPreload.environment)
        let linked = try runProgram(dir.path + "/linked", [], environment: SanitizerPreload.environment)
        #expect(linked.status == 0)
        #expect(plain.output.contains("11 default 0"))
        #expect(linked.output == plain.output)
    }
}
