import MediaPlayback
import Testing

@Suite struct FileBytesTests {
    /// One spelling of an absolute path, so a path typed by hand matches the scan's.
    @Test(arguments: [("/music/./a.flac", "/music/a.flac"), ("//music//a.flac", "/music/a.flac"), ("/music/x/../a.flac", "/music/a.flac"),
                      ("/music/", "/music"), ("/../music", "/music"), ("/", "/"), ("music/./a", "music/./a")])
    func anAbsolutePathIsSpeltOneWay(path: String, normalized: String) {
        #expect(FileBytes.normalized(path) == normalized)
    }
}
