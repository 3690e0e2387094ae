// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Deck",
    products: [
        .executable(name: "deckd", targets: ["deckd"]),
        .executable(name: "deckctl", targets: ["deckctl"]),
        .executable(name: "deck-bench", targets: ["deck-bench"]),
        // The plugin authors' validator.
        .executable(name: "deck-check", targets: ["deck-check"]),
        // One per isolated plugin, started by the runtime.
        .executable(name: "deck-plugin-host", targets: ["deck-plugin-host"]),
        .library(name: "DeckRuntime", targets: ["DeckRuntime"]),
        .library(name: "DeckSDK", targets: ["DeckSDK"]),
        // libdeck.so: the embedding API of sdk/include/deck/runtime.h.
        .library(name: "deck", type: .dynamic, targets: ["DeckEmbed"]),
        // First-party plugins: each a shared library packed into a bundle by `make`.
        .library(name: "Tone", type: .dynamic, targets: ["Tone"]),
        .library(name: "Prompts", type: .dynamic, targets: ["Prompts"]),
        .library(name: "Radio", type: .dynamic, targets: ["Radio"]),
        .library(name: "Library", type: .dynamic, targets: ["Library"]),
        // A Swift plugin for the tests only; they pack it into a bundle themselves.
        .library(name: "SwiftUIFixture", type: .dynamic, targets: ["SwiftUIFixture"]),
    ],
    targets: [
        .systemLibrary(name: "CLibUV", pkgConfig: "libuv", providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "CJansson", pkgConfig: "jansson", providers: [.apt(["libjansson-dev"])]),
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "COgg", pkgConfig: "ogg", providers: [.apt(["libogg-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CDeckPlugin"),
        // Linux process calls for plugin host processes (pidfd, prctl, close_range).
        .systemLibrary(name: "CProcess"),
        // glibc's malloc.h (malloc_trim), which the Glibc module leaves out.
        .systemLibrary(name: "CMalloc"),
        // libFuzzer's driver entry, for deck-fuzz built by `make fuzz`.
        .systemLibrary(name: "CFuzzer"),

        // The runtime, one target per layer; imports point down only (docs/architecture.md).
        .target(name: "DeckBase", dependencies: ["CLibUV", "CJansson", "CProcess"]),
        .target(name: "DeckStream", dependencies: ["DeckBase", "COpus", "COgg"]),
        .target(name: "DeckMedia", dependencies: ["DeckABI", "CDeckPlugin"]),
        .target(name: "DeckAudio", dependencies: ["DeckBase", "DeckStream", "DeckMedia", "CDeckPlugin"]),
        .target(name: "DeckSession", dependencies: ["DeckABI", "DeckBase"]),
        .target(name: "DeckNowPlaying", dependencies: ["DeckABI", "DeckBase", "DeckMedia"]),
        .target(name: "DeckState", dependencies: ["DeckBase", "DeckNowPlaying"]),
        .target(name: "DeckMPRIS", dependencies: ["DeckBase", "DeckMedia", "DeckNowPlaying", "CSystemd"]),
        .target(name: "DeckPlugins", dependencies: ["DeckABI", "DeckBase", "DeckMedia", "DeckSession", "DeckNowPlaying", "DeckUI", "CDeckPlugin"]),
        .target(name: "DeckIsolation", dependencies: ["DeckBase", "DeckMedia", "DeckSession", "DeckNowPlaying", "DeckUI", "DeckPlugins", "CDeckPlugin", "CProcess"]),
        .target(name: "DeckControl", dependencies: ["DeckBase"]),
        .target(name: "DeckUI", dependencies: ["DeckBase", "DeckMedia"]),
        .target(name: "DeckRuntime", dependencies: ["DeckBase", "DeckMedia", "DeckStream", "DeckAudio", "DeckSession", "DeckNowPlaying", "DeckPlugins",
                                                  "DeckControl", "DeckState", "DeckMPRIS", "DeckUI", "DeckIsolation"]),
        // The Swift mirrors of plugin.h's values that the runtime and DeckSDK share.
        .target(name: "DeckABI", dependencies: ["CDeckPlugin"]),
        .target(name: "DeckSDK", dependencies: ["DeckABI", "CDeckPlugin"]),
        .target(name: "CEmbedSignals"),
        .target(name: "DeckEmbed", dependencies: ["DeckRuntime", "CEmbedSignals"],
                linkerSettings: [.unsafeFlags(["-Xlinker", "-soname=libdeck.so.0"])]),
        .executableTarget(name: "deckd", dependencies: ["DeckRuntime", "CMalloc", "CSystemd", "CProcess"]),
        .executableTarget(name: "deck-plugin-host", dependencies: ["DeckIsolation"]),
        .executableTarget(name: "deckctl", dependencies: ["DeckBase"]),
        .executableTarget(name: "deck-check", dependencies: ["DeckBase", "DeckPlugins", "COgg", "COpus"]),
        .executableTarget(name: "deck-bench", dependencies: ["DeckRuntime", "DeckEmbed", "COpus", "CDeckPlugin", "CFFmpeg", "CJansson", "CProcess"]),
        .target(name: "DeckFuzz", dependencies: ["DeckRuntime", "DeckIsolation", "MediaPlayback", "CFFmpeg"]),
        .executableTarget(name: "deck-fuzz", dependencies: ["DeckFuzz", "CFuzzer"]),

        .target(name: "Tone", dependencies: ["DeckSDK"], path: "Plugins/Tone",
                exclude: ["manifest.json"]),
        .systemLibrary(name: "CEspeakNG", providers: [.apt(["libespeak-ng-dev"])]),
        .target(name: "Prompts", dependencies: ["DeckSDK", "CEspeakNG"], path: "Plugins/Prompts",
                exclude: ["manifest.json"]),

        // The first-party apps' own playback library: FFmpeg decoding, a decode thread, loudness.
        .systemLibrary(name: "CFFmpeg", providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libswscale-dev"])]),
        .systemLibrary(name: "CEbur128", providers: [.apt(["libebur128-dev"])]),
        .target(name: "MediaPlayback", dependencies: ["DeckSDK", "CFFmpeg", "CEbur128", "CProcess"], path: "Plugins/MediaPlayback"),
        .target(name: "Radio", dependencies: ["DeckSDK", "MediaPlayback"], path: "Plugins/Radio",
                exclude: ["manifest.json", "stations.json", "station-opus.png", "station-mp3.png"]),
        .target(name: "Library", dependencies: ["DeckSDK", "MediaPlayback", "CMalloc"], path: "Plugins/Library",
                exclude: ["manifest.json"]),

        .target(name: "SwiftUIFixture", dependencies: ["DeckSDK"], path: "Tests/Fixtures/SwiftUIFixture"),
        .target(name: "DeckTestSupport", dependencies: ["DeckRuntime", "CProcess"], path: "Tests/DeckTestSupport"),
        // One test target per layer; DeckRuntimeTests holds what needs the whole runtime and its
        // plugins (the suites `make test` runs in both isolation modes, with deckdTests).
        .testTarget(name: "DeckABITests", dependencies: ["DeckABI", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckBaseTests", dependencies: ["DeckBase", "DeckTestSupport", "CDeckPlugin", "CProcess"]),
        .testTarget(name: "DeckStreamTests", dependencies: ["DeckStream", "CDeckPlugin", "DeckTestSupport"]),
        .testTarget(name: "DeckAudioTests", dependencies: ["DeckAudio", "DeckMedia", "DeckSession", "CDeckPlugin"]),
        .testTarget(name: "DeckSessionTests", dependencies: ["DeckSession", "DeckPlugins", "CDeckPlugin"]),
        .testTarget(name: "DeckControlTests", dependencies: ["DeckControl", "CDeckPlugin"]),
        .testTarget(name: "DeckUITests", dependencies: ["DeckUI", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckSDKTests", dependencies: ["DeckSDK", "DeckUI", "DeckBase"]),
        .testTarget(name: "DeckNowPlayingTests", dependencies: ["DeckNowPlaying", "CDeckPlugin"]),
        .testTarget(name: "DeckMPRISTests", dependencies: ["DeckMPRIS", "DeckNowPlaying", "DeckMedia", "DeckBase", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckPluginsTests", dependencies: ["DeckPlugins", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckIsolationTests", dependencies: ["DeckIsolation", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckStateTests", dependencies: ["DeckState", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckEmbedTests", dependencies: ["DeckEmbed", "DeckRuntime", "DeckTestSupport", "CDeckPlugin"]),
        .testTarget(name: "DeckRuntimeTests", dependencies: ["DeckBase", "DeckMedia", "DeckStream", "DeckAudio", "DeckSession", "DeckNowPlaying", "DeckPlugins",
                                                            "DeckControl", "DeckState", "DeckUI", "DeckRuntime", "DeckSDK", "CDeckPlugin", "DeckTestSupport", "DeckFuzz"]),
        .testTarget(name: "MediaPlaybackTests", dependencies: ["MediaPlayback", "DeckSDK", "CDeckPlugin", "CFFmpeg", "CEbur128", "DeckTestSupport"]),
        .testTarget(name: "deckdTests", dependencies: ["DeckTestSupport", "DeckFuzz"]),
        // deck-check as its users run it: the binary on bundles.
        .testTarget(name: "deck-checkTests", dependencies: ["DeckTestSupport"]),
    ]
)
