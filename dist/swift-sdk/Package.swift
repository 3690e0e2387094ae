// swift-tools-version:6.0
// The Deck SDK for plugins written in Swift, installed with Deck's headers: add it to your package
// (`.package(name: "DeckSDK", path: "<prefix>/share/deck/swift-sdk")`) and depend on the DeckSDK
// product. Its C module reads the plugin ABI headers found through pkg-config (deck-plugin).
import PackageDescription

let package = Package(
    name: "DeckSDK",
    products: [.library(name: "DeckSDK", targets: ["DeckSDK"])],
    targets: [
        .systemLibrary(name: "CDeckPlugin", pkgConfig: "deck-plugin"),
        .target(name: "DeckABI", dependencies: ["CDeckPlugin"]),
        .target(name: "DeckSDK", dependencies: ["DeckABI", "CDeckPlugin"]),
    ]
)
