import DeckTestSupport
import Testing
@testable import DeckUI

/// The images an app hands over: one copy per distinct bytes, a budget for all of them, and
/// removal, which a screen still showing the image holds back.
@Suite struct ImageStoreTests {
    let parked = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio, .communication])

    func png(_ size: Int, _ fill: UInt8) -> [UInt8] { [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: fill, count: size - 8) }

    func list(image: UInt64?) -> String {
        "{\"type\": \"list\", \"items\": [{\"key\": \"a\", \"text\": \"A\"\(image.map { ", \"image\": \($0)" } ?? "")}]}"
    }

    @Test func theSameBytesAddedAgainAreKeptOnceUnderTheirFirstID() throws {
        let app = AppInterface(appID: "a", entitlements: [.audio])
        let cover = png(1_000, 1)
        let id = try app.addImage(cover)
        for _ in 0..<100 { #expect(try app.addImage(cover) == id) }
        let other = try app.addImage(png(1_000, 2))
        #expect(other != id)
        #expect(app.imageUsage.count == 2 && app.imageUsage.bytes == 2_000)
    }

    /// Two PNGs of 24 bytes whose fingerprints collide (FNV over words: the third word undoes the second's difference).
    @Test func differentBytesWithOneFingerprintAreTwoImages() throws {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let prime: UInt64 = 0x100_0000_01b3
        let start = (0xcbf2_9ce4_8422_2325 ^ 24 ^ signature.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }) &* prime
        let (second, otherSecond, third): (UInt64, UInt64, UInt64) = (1, 2, 7)
        let otherThird = ((start ^ second) &* prime) ^ ((start ^ otherSecond) &* prime) ^ third
        func bytes(_ words: UInt64...) -> [UInt8] { signature + words.flatMap { word in withUnsafeBytes(of: word.littleEndian, Array.init) } }
        let (one, other) = (bytes(second, third), bytes(otherSecond, otherThird))
        try #require(one != other && ImageStore.fingerprint(one) == ImageStore.fingerprint(other))

        let app = AppInterface(appID: "a", entitlements: [.audio])
        let (first, next) = (try app.addImage(one), try app.addImage(other))
        #expect(first != next && app.image(first)?.bytes == one && app.image(next)?.bytes == other)
        #expect(try app.addImage(other) == next && app.imageUsage.count == 2)
        try app.removeImage(first)
        #expect(try app.addImage(other) == next, "the other is still found by its bytes")
    }

    @Test func imagesPastTheBudgetAreRefusedUntilSomeAreRemoved() throws {
        let app = AppInterface(appID: "a", entitlements: [.audio], maxImageBytes: 4_096, maxImageTotalBytes: 10_000)
        let ids = try (1...3).map { try app.addImage(png(3_000, $0)) }
        #expect(throws: UIError.limit("the app's images would take 12000 bytes, over the limit of 10000 (ui.maxImageTotalBytes): "
                                      + "remove_image() the ones no longer shown")) { try app.addImage(png(3_000, 4)) }
        #expect(try app.addImage(png(3_000, 2)) == ids[1], "bytes kept already cost nothing")
        try app.removeImage(ids[0])
        #expect(app.image(ids[0]) == nil)
        let fourth = try app.addImage(png(3_000, 4))
        #expect(!ids.contains(fourth), "ids are never reused")
        #expect(app.imageUsage.bytes == 9_000)
        // The bytes of a removed image may come back, under a new id.
        try app.removeImage(fourth)
        #expect(try app.addImage(png(3_000, 1)) > fourth)
    }

    /// A few bytes may claim a picture that takes the screen a GiB to draw: the header's size is
    /// held to `ui.maxImagePixels`, and a side of 0 is no picture.
    @Test func anImageWhoseHeaderClaimsTooManyPixelsIsRefused() throws {
        let app = AppInterface(appID: "a", entitlements: [.audio], maxImagePixels: 1 << 22)
        #expect(throws: UIError.limit("an image of 20000×20000 pixels is over the limit of 4194304 pixels (ui.maxImagePixels): make it smaller first")) {
            try app.addImage(TestPicture.pngHeader(width: 20_000, height: 20_000))
        }
        #expect(throws: UIError.limit("an image of 4294967295×2 pixels is over the limit of 4194304 pixels (ui.maxImagePixels): make it smaller first")) {
            try app.addImage(TestPicture.pngHeader(width: .max, height: 2))
        }
        #expect(throws: UIError.invalid("an image's header gives 0×600 pixels: a picture has at least one")) {
            try app.addImage(TestPicture.pngHeader(width: 0, height: 600))
        }
        #expect(app.imageUsage.count == 0)
        _ = try app.addImage(TestPicture.pngHeader(width: 2048, height: 2048))
        #expect(app.imageUsage.count == 1, "exactly the limit is taken")
    }

    @Test func anImageTheStackShowsIsKeptUntilNoTemplateShowsIt() throws {
        let app = AppInterface(appID: "a", entitlements: [.audio, .communication])
        let (cover, picture, portrait) = (try app.addImage(png(100, 1)), try app.addImage(png(100, 2)), try app.addImage(png(100, 3)))
        let root = try app.setRoot(list(image: cover), limits: parked).id
        _ = try app.push("{\"type\": \"list\", \"items\": [{\"kind\": \"images\", \"images\": [\(picture)]}]}", limits: parked)
        _ = try app.push("{\"type\": \"contact\", \"title\": \"Ann\", \"image\": \(portrait)}", limits: parked)
        #expect(throws: UIError.state("image \(cover) is shown by template \(root): update or pop it first")) { try app.removeImage(cover) }
        #expect(throws: UIError.self) { try app.removeImage(picture) }
        #expect(throws: UIError.self) { try app.removeImage(portrait) }
        try app.pop()
        try app.removeImage(portrait)
        try app.popToRoot()
        try app.removeImage(picture)
        _ = try app.update(root, list(image: nil), limits: parked)
        try app.removeImage(cover)
        #expect(app.imageUsage.count == 0)
        for id: UInt64 in [cover, 0, 12_345, .max] {
            #expect(throws: UIError.invalid("no image \(id): not an id from add_image, or removed already")) { try app.removeImage(id) }
        }
        // A removed image can no longer be named.
        #expect(throws: UIError.self) { try app.update(root, list(image: cover), limits: parked) }
    }

    @Test func aContactsImageMustBeOneHandedOver() throws {
        let app = AppInterface(appID: "a", entitlements: [.communication])
        for value in ["9", "-1", "\"x\"", "1.5", "9223372036854775807"] {
            #expect(throws: UIError.invalid("template.image: \(value) is not an image id from add_image")) {
                try app.setRoot("{\"type\": \"contact\", \"title\": \"Ann\", \"image\": \(value)}", limits: parked)
            }
        }
    }
}
