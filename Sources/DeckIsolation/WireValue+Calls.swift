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

extension NowPlayingCall: WireTagged {
    package static let wireName = "now-playing call"

    package enum Tag: UInt8 {
        case setInfo, setPosition, clear, setQueue, setQueueIndex, setModes, setCommands, complete
    }

    package var tag: Tag {
        switch self {
        case .setInfo: .setInfo
        case .setPosition: .setPosition
        case .clear: .clear
        case .setQueue: .setQueue
        case .setQueueIndex: .setQueueIndex
        case .setModes: .setModes
        case .setCommands: .setCommands
        case .complete: .complete
        }
    }

    package func encode(into writer: inout WireWriter) {
        writer.write(tag.rawValue)
        switch self {
        case .setInfo(let info, let artwork): writer.write(info); writer.write(artwork.map(WireBytes.init))
        case .setPosition(let elapsed, let rate, let state): writer.write(elapsed); writer.write(rate); writer.write(state)
        case .clear: break
        case .setQueue(let items, let current): writer.write(items); writer.write(current)
        case .setQueueIndex(let current): writer.write(current)
        case .setModes(let shuffle, let repeatMode): writer.write(shuffle); writer.write(repeatMode)
        case .setCommands(let enabled, let forward, let backward):
            writer.write(enabled.sorted { $0.rawValue < $1.rawValue }); writer.write(forward); writer.write(backward)
        case .complete(let token, let result): writer.write(token); writer.write(result)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try Self.readTag(&reader) {
        case .setInfo: self = .setInfo(try reader.read(), artwork: try reader.read(WireBytes?.self)?.bytes)
        case .setPosition: self = .setPosition(elapsed: try reader.read(), rate: try reader.read(), state: try reader.read())
        case .clear: self = .clear
        case .setQueue: self = .setQueue(try reader.read(), current: try reader.read())
        case .setQueueIndex: self = .setQueueIndex(try reader.read())
        case .setModes: self = .setModes(try reader.read(), try reader.read())
        case .setCommands:
            self = .setCommands(Set(try reader.read([RemoteCommand.Kind].self)), skipForward: try reader.read(), skipBackward: try reader.read())
        case .complete: self = .complete(token: try reader.read(), try reader.read())
        }
    }
}

extension UICall: WireTagged {
    package static let wireName = "ui call"

    package enum Tag: UInt8 {
        case setRoot, push, pop, popToRoot, present, dismiss, update, complete, addImage, reloadContent, nowPlayingContent, completeContent, removeImage
    }

    package var tag: Tag {
        switch self {
        case .setRoot: .setRoot
        case .push: .push
        case .pop: .pop
        case .popToRoot: .popToRoot
        case .present: .present
        case .dismiss: .dismiss
        case .update: .update
        case .complete: .complete
        case .addImage: .addImage
        case .removeImage: .removeImage
        case .reloadContent: .reloadContent
        case .nowPlayingContent: .nowPlayingContent
        case .completeContent: .completeContent
        }
    }

    package func encode(into writer: inout WireWriter) {
        writer.write(tag.rawValue)
        switch self {
        case .setRoot(let json), .push(let json), .present(let json): writer.write(json)
        case .pop, .popToRoot, .dismiss, .reloadContent: break
        case .update(let id, let json): writer.write(id); writer.write(json)
        case .complete(let token), .removeImage(let token): writer.write(token)
        case .addImage(let bytes): writer.write(WireBytes(bytes))
        case .nowPlayingContent(let ids): writer.write(ids)
        case .completeContent(let token, let status): writer.write(token); writer.write(status)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try Self.readTag(&reader) {
        case .setRoot: self = .setRoot(try reader.read())
        case .push: self = .push(try reader.read())
        case .pop: self = .pop
        case .popToRoot: self = .popToRoot
        case .present: self = .present(try reader.read())
        case .dismiss: self = .dismiss
        case .update: self = .update(templateID: try reader.read(), try reader.read())
        case .complete: self = .complete(token: try reader.read())
        case .addImage: self = .addImage(try reader.read(WireBytes.self).bytes)
        case .removeImage: self = .removeImage(try reader.read())
        case .reloadContent: self = .reloadContent
        case .nowPlayingContent: self = .nowPlayingContent(try reader.read())
        case .completeContent: self = .completeContent(token: try reader.read(), try reader.read())
        }
    }
}
