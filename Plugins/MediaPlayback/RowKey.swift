/// A template row's key for an item id. The runtime takes keys of 1 to 256 bytes and refuses a
/// whole screen over one longer, so a longer id (a stream URL with a token, an album with a long
/// name) is cut and followed by a digest of all of it: the key stays stable and unique.
public enum RowKey {
    public static let maxBytes = 256

    public static func of(_ id: String, prefix: String = "") -> String {
        guard prefix.utf8.count + id.utf8.count > maxBytes else { return prefix + id }
        var digest: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits
        for byte in id.utf8 { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let suffix = "#" + String(digest, radix: 16)
        return prefix + id.prefix(maxBytes: maxBytes - prefix.utf8.count - suffix.utf8.count) + suffix
    }
}
