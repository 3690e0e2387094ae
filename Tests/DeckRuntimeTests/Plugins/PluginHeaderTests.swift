import Foundation
import Testing
import DeckTestSupport

/// plugin.h is the one header a third party builds against: it must compile cleanly as strict C and C++.
@Suite struct PluginHeaderTests {
    static let source = """
        #include <deck/plugin.h>
        static const deck_plugin_entry_t *(*entry)(void) = deck_plugin_entry;
        int main(void) {
            deck_abi_version_t version = DECK_ABI_VERSION_INIT;
            return (int)version.major - DECK_ABI_VERSION_MAJOR + (entry == 0);
        }
        const deck_plugin_entry_t *deck_plugin_entry(void) { return 0; }
        """

    @Test(arguments: [("/usr/bin/cc", "c", "-std=c11"), ("/usr/bin/c++", "c++", "-std=c++17")])
    func compilesWithEveryWarningAsAnError(compiler: String, language: String, standard: String) throws {
        let dir = TemporaryDirectory()
        let file = dir.path + "/header-check.\(language == "c" ? "c" : "cpp")"
        try PluginHeaderTests.source.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try runProgram(compiler, [standard, "-Wall", "-Wextra", "-Werror", "-pedantic",
                                                          "-I", Paths.sdkInclude, "-o", dir.path + "/check", file])
        #expect(status == 0, "\(output)")
        #expect(output.isEmpty)
        #expect(try runProgram(dir.path + "/check", []).status == 0)
    }

    @Test func theExamplePluginBuildsWithPlainCCAgainstTheSDKOnly() throws {
        let dir = TemporaryDirectory()
        let (status, output) = try runProgram("/usr/bin/make", ["-s", "-C", Paths.repoRoot + "/examples/plugin-c",
                                                               "BUNDLE=\(dir.path)/Hello.deckplugin"])
        #expect(status == 0, "\(output)")
        let log = LogCapture()
        let runtime = try makeRuntime(log: log)
        let plugin = try #require(runtime.loadBundle(dir.path + "/Hello.deckplugin"))
        #expect(plugin.id == "org.example.hello")
        runtime.shutdown()
    }
}

extension PluginHeaderTests {
    @Test func thePkgConfigFileGivesTheSDKIncludePath() throws {
        let (status, output) = try runProgram("/usr/bin/pkg-config", ["--cflags", "deck-plugin"],
                                              environment: ["PKG_CONFIG_PATH": Paths.repoRoot + "/sdk"])
        #expect(status == 0)
        let include = output.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(2)
        #expect(FileManager.default.fileExists(atPath: "\(include)/deck/plugin.h"))
    }
}
