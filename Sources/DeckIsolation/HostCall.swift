import DeckBase
import DeckNowPlaying
import DeckPlugins
import DeckSession

/// A loop-thread host call an isolated plugin made, read and checked in its host process: the
/// `HostActions` the runtime answers.
package enum HostCall: WireTagged {
    case openStream, closeStream, abandonFocus
    case requestFocus(AudioContext, FocusRequestType, acceptsDelayed: Bool, pausesOnDuck: Bool)
    case nowPlaying(NowPlayingCall)
    case ui(UICall)

    package static let wireName = "host call"

    package enum Tag: UInt8 {
        case openStream, closeStream, abandonFocus, requestFocus, nowPlaying, ui
    }

    package var tag: Tag {
        switch self {
        case .openStream: .openStream
        case .closeStream: .closeStream
        case .abandonFocus: .abandonFocus
        case .requestFocus: .requestFocus
        case .nowPlaying: .nowPlaying
        case .ui: .ui
        }
    }

    package func encode(into writer: inout WireWriter) {
        writer.write(tag.rawValue)
        switch self {
        case .openStream, .closeStream, .abandonFocus: break
        case .requestFocus(let context, let type, let delayed, let pauses):
            writer.write(context); writer.write(type); writer.write(delayed); writer.write(pauses)
        case .nowPlaying(let call): writer.write(call)
        case .ui(let call): writer.write(call)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try Self.readTag(&reader) {
        case .openStream: self = .openStream
        case .closeStream: self = .closeStream
        case .abandonFocus: self = .abandonFocus
        case .requestFocus: self = .requestFocus(try reader.read(), try reader.read(), acceptsDelayed: try reader.read(), pausesOnDuck: try reader.read())
        case .nowPlaying: self = .nowPlaying(try reader.read())
        case .ui: self = .ui(try reader.read())
        }
    }
}

/// What a host process says without waiting for an answer.
package enum HostEvent: WireValue {
    /// A line for the runtime's log, under the plugin's id (the host's own lines name the plugin too).
    case log(LogLevel, String)
    /// The plugin asked for `on_callback`.
    case callback
    /// The host's loop thread is alive.
    case heartbeat

    package func encode(into writer: inout WireWriter) {
        switch self {
        case .log(let level, let message): writer.write(UInt8(0)); writer.write(level.rawValue); writer.write(message)
        case .callback: writer.write(UInt8(1))
        case .heartbeat: writer.write(UInt8(2))
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0:
            let raw = try reader.read(Int.self)
            guard let level = LogLevel(rawValue: raw) else { throw .invalid("log level \(raw)") }
            self = .log(level, try reader.read())
        case 1: self = .callback
        case 2: self = .heartbeat
        case let tag: throw .invalid("event \(tag)")
        }
    }
}

/// The host process's first message: the plugin's code is loaded and its instance created, or why not.
package enum HostHello: WireValue {
    case loaded(isSwift: Bool)
    case refused(PluginLoadError.Reason)

    package func encode(into writer: inout WireWriter) {
        switch self {
        case .loaded(let isSwift): writer.write(UInt8(0)); writer.write(isSwift)
        case .refused(let reason):
            writer.write(UInt8(1))
            switch reason {
            case .dlopenFailed(let text): writer.write(UInt8(0)); writer.write(text)
            case .missingEntrySymbol: writer.write(UInt8(1))
            case .entryInvalid(let text): writer.write(UInt8(2)); writer.write(text)
            case .abiIncompatible(let major, let minor): writer.write(UInt8(3)); writer.write(major); writer.write(minor)
            case .entryInitFailed: writer.write(UInt8(4))
            case .createFailed: writer.write(UInt8(5))
            case .pluginInvalid(let text): writer.write(UInt8(6)); writer.write(text)
            default: writer.write(UInt8(7)); writer.write(PluginLoadError(bundle: "", reason: reason).reasonText)
            }
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .loaded(isSwift: try reader.read())
        case 1:
            switch try reader.read(UInt8.self) {
            case 0: self = .refused(.dlopenFailed(try reader.read()))
            case 1: self = .refused(.missingEntrySymbol)
            case 2: self = .refused(.entryInvalid(try reader.read()))
            case 3: self = .refused(.abiIncompatible(major: try reader.read(), minor: try reader.read()))
            case 4: self = .refused(.entryInitFailed)
            case 5: self = .refused(.createFailed)
            case 6: self = .refused(.pluginInvalid(try reader.read()))
            case 7: self = .refused(.libraryUnusable(try reader.read()))
            case let tag: throw .invalid("load refusal \(tag)")
            }
        case let tag: throw .invalid("hello \(tag)")
        }
    }
}
