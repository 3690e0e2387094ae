import Testing
@testable import MediaPlayback

/// What a station's playlist may send the radio to.
@Suite struct PlaylistTests {
    @Test(arguments: [
        ("http://radio.example/lists/a.m3u?x=1", "https://cdn.example/live.mp3", "https://cdn.example/live.mp3"),
        ("http://radio.example/lists/a.m3u?x=1", "live.mp3", "http://radio.example/lists/live.mp3"),
        ("http://radio.example/lists/a.m3u", "../live.mp3", "http://radio.example/live.mp3"),
        ("http://radio.example:8000/lists/a.pls", "/mount/live", "http://radio.example:8000/mount/live"),
        ("https://radio.example", "live.mp3", "https://radio.example/live.mp3"),
        ("https://radio.example/a.pls", "//cdn.example/live.mp3", "https://cdn.example/live.mp3"),
        ("HTTP://radio.example/a.m3u", "./b/../live.mp3", "HTTP://radio.example/live.mp3"),
        ("/srv/stations/a.m3u", "file:///srv/stations/live.mp3", "file:///srv/stations/live.mp3"),  // the integrator's own file
    ])
    func entriesResolveAgainstTheirPlaylist(playlist: String, entry: String, expected: String) throws {
        #expect(try Playlist.entry(entry, of: playlist) == expected)
    }

    @Test(arguments: [
        ("#EXTM3U\n#EXTINF:-1,Station\nhttp://radio.example/live.mp3?type=.mp3&sid=1\n", "http://radio.example/live.mp3?type=.mp3&sid=1"),
        ("[playlist]\nNumberOfEntries=2\nTitle1=One\nFile1=http://radio.example/a?x=1\nFile2=http://radio.example/b\nVersion=2\n",
         "http://radio.example/a?x=1"),
        ("\r\n  live.mp3  \r\n", "live.mp3"),
        ("\u{FEFF}#EXTM3U\r\n#EXTINF:-1,Station\r\nhttp://radio.example/live.mp3\r\n", "http://radio.example/live.mp3"),
        ("\u{FEFF}[playlist]\r\nFile1=http://radio.example/a\r\n", "http://radio.example/a"),
        ("[playlist]\nFile1=\nFile2= http://radio.example/b \n", "http://radio.example/b"),
    ])
    func theFirstStreamIsFoundInM3UAndPLS(text: String, expected: String) {
        #expect(Playlist.firstEntry(in: text) == expected)
    }

    @Test func aPlaylistOfOnlyCommentsAndKeysListsNoStream() {
        #expect(Playlist.firstEntry(in: "#EXTM3U\n[playlist]\nNumberOfEntries=0\nVersion=2\n") == nil)
    }

    @Test(arguments: ["file:///etc/passwd", "pipe:0", "unix:/run/deck.sock", "concat:/a|/b", "subfile,,start,0,end,10,,:/etc/shadow", "tcp://127.0.0.1:7700"])
    func aNetworkPlaylistNamesNetworkStreamsOnly(entry: String) {
        #expect(throws: MediaError.refused("http://radio.example/a.pls",
                                           "it lists \(entry); a playlist from the network may name only http:// and https:// streams")) {
            try Playlist.entry(entry, of: "http://radio.example/a.pls")
        }
    }
}
