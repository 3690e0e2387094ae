import Glibc
import MediaPlayback
import Testing

@Suite struct FileBytesTests {
    /// One spelling of an absolute path, so a path typed by hand matches the scan's.
    @Test(arguments: [("/music/./a.flac", "/music/a.flac"), ("//music//a.flac", "/music/a.flac"), ("/music/x/../a.flac", "/music/a.flac"),
                      ("/music/", "/music"), ("/../music", "/music"), ("/", "/"), ("music/./a", "music/./a")])
    func anAbsolutePathIsSpeltOneWay(path: String, normalized: String) {
        #expect(FileBytes.normalized(path) == normalized)
    }

    /// Inode numbers with the top bit set (overlayfs's xino, FUSE) are a key like any other.
    @Test func aFilesIdentityTakesEveryInodeNumber() {
        var info = stat()
        info.st_dev = 0x2f
        info.st_ino = .max
        var other = info
        other.st_ino = .max - 1
        #expect(FileBytes.identity(info) == [0x2f, -1])
        #expect(FileBytes.identity(info) != FileBytes.identity(other))
    }
}
