import Foundation

/// What a plain C program needs to load a libdeck built with a sanitizer: the sanitizer's runtime
/// preloaded (`make asan` and `make tsan` name it in `DECK_SANITIZER_PRELOAD`), and, to link
/// against that libdeck, leave to the preload the symbols it expects; nothing otherwise.
public enum SanitizerPreload {
    private static let runtime = ProcessInfo.processInfo.environment["DECK_SANITIZER_PRELOAD"].flatMap { $0.isEmpty ? nil : $0 }

    /// The environment a C program that loads libdeck runs with.
    public static var environment: [String: String] { runtime.map { ["LD_PRELOAD": $0] } ?? [:] }

    /// Flags for `cc` linking a program to libdeck.
    public static var linkFlags: [String] { runtime == nil ? [] : ["-Wl,--allow-shlib-undefined"] }
}
