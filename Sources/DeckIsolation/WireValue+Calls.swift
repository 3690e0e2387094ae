import DeckNowPlaying
import DeckPlugins

extension NowPlayingInfo: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(title)
        writer.write(artists)
        writer.write(album)
        writer.write(albumArtist)
        writer.write(artworkURI)
        writer.write(duration)
        writer.write(isLive)
        writer.write(mediaType)
        writer.write(defaultRate)
        writer.write(chapterNumber)
        writer.write(chapterCount)
        writer.write(playbackState)
        writer.write(elapsed)
        writer.write(rate)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self.init()
        title = try reader.read()
        artists = try reader.read()
        album = try reader.read()
        albumArtist = try reader.read()
        artworkURI = try reader.read()
        duration = try reader.read()
        isLive = try reader.read()
        mediaType = try reader.read()
        defaultRate = try reader.read()
        chapterNumber = try reader.read()
        chapterCount = try reader.read()
        let state: PlaybackState = try reader.read()
        setPosition(elapsed: try reader.read(), rate: try reader.read(), state: state, now: 0)
    }
}

extension QueueItem: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(key)
        writer.write(title)
        writer.write(artist)
        writer.write(duration)
        writer.write(artworkURI)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self.init(key: try reader.read(), title: try reader.read(), artist: try reader.read(), duration: try reader.read(),
                  artworkURI: try reader.read())
    }
}

extension NowPlayingCall: WireValue {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .setInfo(let info, let artwork):
            writer.write(UInt8(0)); writer.write(info); writer.write(artwork.map(WireBytes.init))
        case .setPosition(let elapsed, let rate, let state):
            writer.write(UInt8(1)); writer.write(elapsed); writer.write(rate); writer.write(state)
        case .clear: writer.write(UInt8(2))
        case .setQueue(let items, let current): writer.write(UInt8(3)); writer.write(items); writer.write(current)
        case .setQueueIndex(let current): writer.write(UInt8(4)); writer.write(current)
        case .setModes(let shuffle, let repeatMode): writer.write(UInt8(5)); writer.write(shuffle); writer.write(repeatMode)
        case .setCommands(let enabled, let forward, let backward):
            writer.write(UInt8(6)); writer.write(enabled.sorted { $0.rawValue < $1.rawValue }); writer.write(forward); writer.write(backward)
        case .complete(let token, let result): writer.write(UInt8(7)); writer.write(token); writer.write(result)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .setInfo(try reader.read(), artwork: try reader.read(WireBytes?.self)?.bytes)
        case 1: self = .setPosition(elapsed: try reader.read(), rate: try reader.read(), state: try reader.read())
        case 2: self = .clear
        case 3: self = .setQueue(try reader.read(), current: try reader.read())
        case 4: self = .setQueueIndex(try reader.read())
        case 5: self = .setModes(try reader.read(), try reader.read())
        case 6: self = .setCommands(Set(try reader.read([RemoteCommand.Kind].self)), skipForward: try reader.read(), skipBackward: try reader.read())
        case 7: self = .complete(token: try reader.read(), try reader.read())
        case let tag: throw .invalid("now-playing call \(tag)")
        }
    }
}

extension UICall: WireValue {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .setRoot(let json): writer.write(UInt8(0)); writer.write(json)
        case .push(let json): writer.write(UInt8(1)); writer.write(json)
        case .pop: writer.write(UInt8(2))
        case .popToRoot: writer.write(UInt8(3))
        case .present(let json): writer.write(UInt8(4)); writer.write(json)
        case .dismiss: writer.write(UInt8(5))
        case .update(let id, let json): writer.write(UInt8(6)); writer.write(id); writer.write(json)
        case .complete(let token): writer.write(UInt8(7)); writer.write(token)
        case .addImage(let bytes): writer.write(UInt8(8)); writer.write(WireBytes(bytes))
        case .reloadContent: writer.write(UInt8(9))
        case .nowPlayingContent(let ids): writer.write(UInt8(10)); writer.write(ids)
        case .completeContent(let token, let status): writer.write(UInt8(11)); writer.write(token); writer.write(status)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .setRoot(try reader.read())
        case 1: self = .push(try reader.read())
        case 2: self = .pop
        case 3: self = .popToRoot
        case 4: self = .present(try reader.read())
        case 5: self = .dismiss
        case 6: self = .update(templateID: try reader.read(), try reader.read())
        case 7: self = .complete(token: try reader.read())
        case 8: self = .addImage(try reader.read(WireBytes.self).bytes)
        case 9: self = .reloadContent
        case 10: self = .nowPlayingContent(try reader.read())
        case 11: self = .completeContent(token: try reader.read(), try reader.read())
        case let tag: throw .invalid("ui call \(tag)")
        }
    }
}
