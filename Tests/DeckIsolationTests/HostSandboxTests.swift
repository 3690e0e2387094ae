@testable import DeckIsolation
import Testing

/// A host may read the folders its code was loaded from, so a plugin's libraries find theirs
/// beside them; a data file mapped elsewhere opens no folder to it.
@Suite struct HostSandboxTests {
    @Test func theFoldersOfMappedCodeAreReadableThoseOfMappedDataAreNot() {
        let maps = """
            55e8e7500000-55e8e7600000 r--p 00000000 08:01 101 /usr/lib/deck/deck-plugin-host
            55e8e7600000-55e8e7900000 r-xp 00100000 08:01 101 /usr/lib/deck/deck-plugin-host
            7f0000000000-7f0000100000 r-xp 00000000 08:01 202 /usr/lib/deck/swift/libswiftCore.so
            7f0000200000-7f0000300000 r--p 00000000 08:01 303 /tmp/tsan.rodata.4242
            7f0000300000-7f0000400000 rw-s 00000000 00:01 404 /memfd:deck-audio (deleted)
            7f0000400000-7f0000500000 r--p 00000000 08:01 505 /home/someone/secrets/cache.bin
            7f0000500000-7f0000501000 rw-p 00000000 00:00 0
            7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]
            """
        #expect(HostSandbox.codeFolders(inMaps: maps) == ["/usr/lib/deck", "/usr/lib/deck/swift"])
    }
}
