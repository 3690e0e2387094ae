import Foundation
import Testing
@testable import DeckPlugins
import DeckTestSupport

/// The SDK headers are what a third party builds against: the core (deck/core.h), ABI 1.0's
/// deck/plugin.h, each extension alone (deck/ext/), the umbrella and the embedding API
/// (deck/runtime.h) must each compile cleanly
/// as strict C and C++. Every header in sdk/include is checked, so a new one is too.
@Suite struct PluginHeaderTests {
    static let compilers = [("/usr/bin/cc", "c", "-std=c11"), ("/usr/bin/c++", "c++", "-std=c++17")]

    /// Every public header but runtime.h (which declares no plugin ABI), as `deck/…`.
    static let headers: [String] = {
        let all = (FileManager.default.enumerator(atPath: Paths.sdkInclude + "/deck")?.allObjects as? [String] ?? [])
        return all.filter { $0.hasSuffix(".h") && $0 != "runtime.h" }.map { "deck/" + $0 }.sorted()
    }()

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

    /// No header includes one that includes it back: the extensions include the core, and only
    /// the umbrellas (deck.h, plugin.h) include extensions.
    @Test func noHeaderIncludesItselfBack() throws {
        var includes: [String: [String]] = [:]
        for header in PluginHeaderTests.headers {
            let text = try String(contentsOfFile: Paths.sdkInclude + "/" + header, encoding: .utf8)
            let folder = header.split(separator: "/").dropLast().joined(separator: "/")
            includes[header] = text.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("#include \"") else { return nil }
                var path = folder.split(separator: "/").map(String.init)
                for part in line.dropFirst(10).dropLast().split(separator: "/") {
                    if part == ".." { path.removeLast() } else { path.append(String(part)) }
                }
                return path.joined(separator: "/")
            }
        }
        func reaches(_ from: String, _ target: String, _ seen: Set<String> = []) -> Bool {
            (includes[from] ?? []).contains { $0 == target || (!seen.contains($0) && reaches($0, target, seen.union([from]))) }
        }
        for header in PluginHeaderTests.headers { #expect(!reaches(header, header), "\(header) includes itself back") }
        #expect(includes["deck/core.h"] == [], "the core includes no other Deck header")
        #expect(includes["deck/ext/audio.h"] == ["deck/core.h"])
    }

    @Test func theListCoversEveryExtensionHeader() {
        #expect(PluginHeaderTests.headers.count == 9)
        #expect(PluginHeaderTests.headers.contains("deck/ext/content.h") && PluginHeaderTests.headers.contains("deck/ext/now-playing.h"))
    }

    @Test(arguments: compilers)
    func theEmbeddingHeaderCompilesAloneWithEveryWarningAsAnError(compiler: (String, String, String)) throws {
        let (compiler, language, standard) = compiler
        let dir = TemporaryDirectory()
        let file = dir.path + "/runtime-check.\(language == "c" ? "c" : "cpp")"
        let source = """
            #include <deck/runtime.h>
            uint32_t (*version)(void) = deck_runtime_api_version;
            int (*unsubscribe)(deck_runtime_t *, const char *) = deck_runtime_unsubscribe;
            int check(void) {
                return DECK_RUNTIME_API_VERSION == DECK_RUNTIME_MAKE_VERSION(1, DECK_RUNTIME_API_VERSION_MINOR)
                    && version != 0 && unsubscribe != 0 && DECK_RUNTIME_LOG_DEBUG == 3;
            }
            """
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let (status, output) = try runProgram(compiler, [standard, "-Wall", "-Wextra", "-Werror", "-pedantic", "-c",
                                                          "-I", Paths.sdkInclude, "-o", dir.path + "/check.o", file])
        #expect(status == 0 && output.isEmpty, "\(output)")
    }

    @Test(arguments: compilers, headers)
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
