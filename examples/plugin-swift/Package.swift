// swift-tools-version:6.0
// A Deck plugin written in Swift outside Deck's own package, against the installed SDK: the DeckSDK
// package that `make install` puts in <prefix>/share/deck/swift-sdk (DECK_SWIFT_SDK names another
// one), whose C module finds the headers through pkg-config (deck-plugin.pc).
import PackageDescription

let sdk = Context.environment["DECK_SWIFT_SDK"] ?? "/usr/local/share/deck/swift-sdk"

let package = Package(
    name: "Metronome",
    products: [.library(name: "Metronome", type: .dynamic, targets: ["Metronome"])],
    dependencies: [.package(name: "DeckSDK", path: sdk)],
    targets: [.target(name: "Metronome", dependencies: [.product(name: "DeckSDK", package: "DeckSDK")])]
)
