import Foundation
import Testing
@testable import DeckPlugins
import DeckTestSupport

/// The SDK headers are what a third party builds against: the core (deck/plugin.h), each extension
/// alone (deck/ext/), and the umbrella must each compile cleanly as strict C and C++.
@Suite struct PluginHeaderTests {
    static let headers = ["deck/plugin.h", "deck/deck.h", "deck/ext/audio.h", "deck/ext/session.h", "deck/ext/thread-check.h"]

    static func source(including header: String) -> String {
        """
        #include <\(header)>
        static const deck_plugin_entry_t *(*entry)(void) = deck_plugin_entry;
        int main(void) {
            deck_abi_version_t version = DECK_ABI_VERSION_INIT;
            deck_abi_version_t newer = { DECK_ABI_VERSION_MAJOR, DECK_ABI_VERSION_MINOR + 1, 0 };
            deck_abi_version_t other = { DECK_ABI_VERSION_MAJOR + 1, 0, 0 };
            int refused = !deck_abi_is_compatible(newer) && !deck_abi_is_compatible(other);
            return (int)version.major - DECK_ABI_VERSION_MAJOR + (entry == 0) + !deck_abi_is_compatible(version) + !refused;
        }
        DECK_EXPORT const deck_plugin_entry_t *deck_plugin_entry(void) { return 0; }
        """
    }

    @Test(arguments: [("/usr/bin/cc", "c", "-std=c11"), ("/usr/bin/c++", "c++", "-std=c++17")], headers)
    func eachHeaderCompilesAloneWithEveryWarningAsAnError(compiler: (String, String, String), header: String) throws {
        let (compiler, language, standard) = compiler
        let dir = TemporaryDirectory()
        let file = dir.path + "/header-check.\(language == "c" ? "c" : "cpp")"
        try PluginHeaderTests.source(including: header).write(toFile: file, atomically: true, encoding: .utf8)
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
        let plugin = try #require(runtime.plugins.load(dir.path + "/Hello.deckplugin"))
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
