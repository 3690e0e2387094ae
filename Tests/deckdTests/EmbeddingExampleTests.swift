import DeckTestSupport
import Foundation
import Testing

/// What an integrator does: `make install`, then build examples/embed-c with plain cc and
/// pkg-config against the installed SDK only, and run it. Its Ogg file is judged by opusinfo
/// and ffmpeg.
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
        result = try runProgram("/usr/bin/make", ["-s", "-C", Paths.repoRoot + "/examples/embed-c", "PKG_CONFIG_PATH=\(lib)/pkgconfig", "OUT=\(program)"])
        #expect(result.status == 0, "\(result.output)")
        let ogg = prefix.path + "/tone.opus"
        result = try runProgram(program, [prefix.path + "/lib/deck/plugins", ogg, "2"], timeout: 30)
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("apps.launch answered: {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":"))
        #expect(result.output.contains("event: session.changed"))
        #expect(result.output.contains("event: now playing Sine 440 Hz"))
        #expect(result.output.contains("destroyed: ok"))
        let info = try AudioAnalysis.opusinfo(ogg)
        #expect(info.status == 0 && info.warnings.isEmpty, "\(info.output)")
        #expect(info.output.contains("Logical stream 1 ended"))
        let audio = try AudioAnalysis.decodeWithFFmpeg(ogg)
        #expect(audio.frames > 48_000)
        #expect(abs(AudioAnalysis.dominantFrequency(audio.left) - 440) < 3)
    }
}
