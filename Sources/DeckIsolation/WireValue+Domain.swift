import DeckNowPlaying
import DeckPlugins
import DeckSession
import DeckUI

/// Bytes as one block (an image, artwork), not element by element.
package struct WireBytes: WireValue {
    package var bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package func encode(into writer: inout WireWriter) {
        writer.append(UInt32(bytes.count))
        writer.append(bytes)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        bytes = Array(try reader.raw(count: Int(try reader.integer(UInt32.self))))
    }
}

/// Enums carried by their names, checked on arrival.
package protocol WireNamed: WireValue, RawRepresentable where RawValue == String {}

extension WireNamed {
    package func encode(into writer: inout WireWriter) { rawValue.encode(into: &writer) }

    package init(from reader: inout WireReader) throws(WireError) {
        let name = try String(from: &reader)
        guard let value = Self(rawValue: name) else { throw .invalid("unknown \(Self.self) \"\(name)\"") }
        self = value
    }
}

extension AudioContext: WireNamed {}
extension FocusRequestType: WireNamed {}
extension PlaybackState: WireNamed {}
extension MediaType: WireNamed {}
extension ShuffleMode: WireNamed {}
extension RepeatMode: WireNamed {}

extension DeckStatus: WireValue {
    package func encode(into writer: inout WireWriter) { writer.append(rawValue) }
    package init(from reader: inout WireReader) throws(WireError) { self = DeckStatus(code: try reader.integer(Int32.self)) }
}

/// Enums carried by their numbers, checked on arrival.
package protocol WireNumbered: WireValue, RawRepresentable where RawValue == Int {}

extension WireNumbered {
    package func encode(into writer: inout WireWriter) { writer.write(rawValue) }

    package init(from reader: inout WireReader) throws(WireError) {
        let raw = try Int(from: &reader)
        guard let value = Self(rawValue: raw) else { throw .invalid("\(raw) is not a \(Self.self)") }
        self = value
    }
}

extension CommandResult: WireNumbered {}
extension RemoteCommand.Kind: WireNumbered {}

extension PluginCallError: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(status)
        writer.write(message)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self.init(status: try reader.read(), message: try reader.read())
    }
}

extension FocusChange: WireValue {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .gain(let resume): writer.write(UInt8(0)); writer.write(resume)
        case .loss: writer.write(UInt8(1))
        case .lossTransient: writer.write(UInt8(2))
        case .duck: writer.write(UInt8(3))
        case .unduck: writer.write(UInt8(4))
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .gain(shouldResume: try reader.read())
        case 1: self = .loss
        case 2: self = .lossTransient
        case 3: self = .duck
        case 4: self = .unduck
        case let tag: throw .invalid("focus change \(tag)")
        }
    }
}

extension FocusResult: WireValue {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .granted: writer.write(UInt8(0))
        case .delayed(let reason): writer.write(UInt8(1)); writer.write(reason)
        case .rejected(let reason): writer.write(UInt8(2)); writer.write(reason)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .granted
        case 1: self = .delayed(try reader.read())
        case 2: self = .rejected(try reader.read())
        case let tag: throw .invalid("focus result \(tag)")
        }
    }
}

extension RemoteCommand: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(kind)
        switch self {
        case .seek(let value), .skip(let value), .setRate(let value): writer.write(value)
        case .setShuffle(let mode): writer.write(mode)
        case .setRepeat(let mode): writer.write(mode)
        default: break
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        let kind = try reader.read(RemoteCommand.Kind.self)
        switch kind {
        case .seek, .skip, .setRate: self = RemoteCommand(kind, value: try reader.read())
        case .setShuffle: self = RemoteCommand(kind, shuffle: try reader.read())
        case .setRepeat: self = RemoteCommand(kind, repeat: try reader.read())
        default: self = RemoteCommand(kind)
        }
    }
}

extension ContentItem: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(id)
        writer.write(title)
        writer.write(subtitle)
        writer.write(artworkURI)
        writer.write(playable)
        writer.write(container)
        writer.write(streaming)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self.init(id: try reader.read(), title: try reader.read())
        subtitle = try reader.read()
        artworkURI = try reader.read()
        playable = try reader.read()
        container = try reader.read()
        streaming = try reader.read()
    }
}

extension UIAnswer: WireValue {
    package func encode(into writer: inout WireWriter) {
        writer.write(id)
        writer.write(dropped)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self.init(id: try reader.read(), dropped: try reader.read())
    }
}
