import DeckNowPlaying
import DeckPlugins
import DeckSession

/// A call from the runtime into an isolated plugin's code: one case per `PluginCode` call that
/// reaches the plugin.
package enum PluginCall: WireTagged, Equatable {
    package static let wireName = "plugin call"

    case initialize, activate, deactivate, destroy, onCallback
    case start(item: String?), stop
    case focusChanged(FocusChange), sessionChanged(active: Bool)
    case command(RemoteCommand, token: UInt64)
    case displayChanged(attached: Bool, profile: String)
    case select(templateID: UInt64, key: String, token: UInt64)
    case limitsChanged(String)
    case childCount(path: String), contentItem(path: String)
    case beginLoading(path: String, token: UInt64), play(path: String, token: UInt64)

    /// The wire tag of each call: numbered once, here, for both ends.
    package enum Tag: UInt8 {
        case initialize, activate, deactivate, destroy, onCallback, start, stop, focusChanged, sessionChanged, command
        case displayChanged, select, limitsChanged, childCount, contentItem, beginLoading, play

        /// The ABI function the call reaches, for logs.
        package var name: String {
            switch self {
            case .initialize: "init"
            case .onCallback: "on_callback"
            case .focusChanged: "focus_changed"
            case .sessionChanged: "session_changed"
            case .displayChanged: "display_changed"
            case .limitsChanged: "limits_changed"
            case .childCount: "child_count"
            case .contentItem: "item"
            case .beginLoading: "begin_loading"
            default: "\(self)"
            }
        }
    }

    package var tag: Tag {
        switch self {
        case .initialize: .initialize
        case .activate: .activate
        case .deactivate: .deactivate
        case .destroy: .destroy
        case .onCallback: .onCallback
        case .start: .start
        case .stop: .stop
        case .focusChanged: .focusChanged
        case .sessionChanged: .sessionChanged
        case .command: .command
        case .displayChanged: .displayChanged
        case .select: .select
        case .limitsChanged: .limitsChanged
        case .childCount: .childCount
        case .contentItem: .contentItem
        case .beginLoading: .beginLoading
        case .play: .play
        }
    }

    /// The ABI function the call reaches, for logs.
    package var name: String { tag.name }

    package func encode(into writer: inout WireWriter) {
        writer.write(tag.rawValue)
        switch self {
        case .initialize, .activate, .deactivate, .destroy, .onCallback, .stop: break
        case .start(let item): writer.write(item)
        case .focusChanged(let change): writer.write(change)
        case .sessionChanged(let active): writer.write(active)
        case .command(let command, let token): writer.write(command); writer.write(token)
        case .displayChanged(let attached, let profile): writer.write(attached); writer.write(profile)
        case .select(let id, let key, let token): writer.write(id); writer.write(key); writer.write(token)
        case .limitsChanged(let limits): writer.write(limits)
        case .childCount(let path), .contentItem(let path): writer.write(path)
        case .beginLoading(let path, let token), .play(let path, let token): writer.write(path); writer.write(token)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try Self.readTag(&reader) {
        case .initialize: self = .initialize
        case .activate: self = .activate
        case .deactivate: self = .deactivate
        case .destroy: self = .destroy
        case .onCallback: self = .onCallback
        case .start: self = .start(item: try reader.read())
        case .stop: self = .stop
        case .focusChanged: self = .focusChanged(try reader.read())
        case .sessionChanged: self = .sessionChanged(active: try reader.read())
        case .command: self = .command(try reader.read(), token: try reader.read())
        case .displayChanged: self = .displayChanged(attached: try reader.read(), profile: try reader.read())
        case .select: self = .select(templateID: try reader.read(), key: try reader.read(), token: try reader.read())
        case .limitsChanged: self = .limitsChanged(try reader.read())
        case .childCount: self = .childCount(path: try reader.read())
        case .contentItem: self = .contentItem(path: try reader.read())
        case .beginLoading: self = .beginLoading(path: try reader.read(), token: try reader.read())
        case .play: self = .play(path: try reader.read(), token: try reader.read())
        }
    }
}

/// The extensions a plugin offers, known after its `init`.
package struct PluginOffers: WireValue, Equatable {
    package var audio = false, nowPlaying = false, ui = false, content = false

    package init() {}

    package func encode(into writer: inout WireWriter) {
        writer.write(audio); writer.write(nowPlaying); writer.write(ui); writer.write(content)
    }

    package init(from reader: inout WireReader) throws(WireError) {
        audio = try reader.read(); nowPlaying = try reader.read(); ui = try reader.read(); content = try reader.read()
    }
}

extension Result: WireValue where Success: WireValue, Failure == PluginCallError {
    package func encode(into writer: inout WireWriter) {
        switch self {
        case .success(let value): writer.write(true); writer.write(value)
        case .failure(let error): writer.write(false); writer.write(error)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        self = try reader.read(Bool.self) ? .success(try reader.read()) : .failure(try reader.read())
    }
}
