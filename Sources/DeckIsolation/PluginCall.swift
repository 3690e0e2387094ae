import DeckNowPlaying
import DeckPlugins
import DeckSession

/// A call from the runtime into an isolated plugin's code: one case per `PluginCode` call that
/// reaches the plugin.
package enum PluginCall: WireValue, Equatable {
    case initialize, activate, deactivate, destroy, onCallback
    case start(item: String?), stop
    case focusChanged(FocusChange), sessionChanged(active: Bool)
    case command(RemoteCommand, token: UInt64)
    case displayChanged(attached: Bool, profile: String)
    case select(templateID: UInt64, key: String, token: UInt64)
    case limitsChanged(String)
    case childCount(path: String), contentItem(path: String)
    case beginLoading(path: String, token: UInt64), play(path: String, token: UInt64)

    /// The ABI function the call reaches, for logs.
    package var name: String {
        switch self {
        case .initialize: "init"
        case .activate: "activate"
        case .deactivate: "deactivate"
        case .destroy: "destroy"
        case .onCallback: "on_callback"
        case .start: "start"
        case .stop: "stop"
        case .focusChanged: "focus_changed"
        case .sessionChanged: "session_changed"
        case .command: "command"
        case .displayChanged: "display_changed"
        case .select: "select"
        case .limitsChanged: "limits_changed"
        case .childCount: "child_count"
        case .contentItem: "item"
        case .beginLoading: "begin_loading"
        case .play: "play"
        }
    }

    package func encode(into writer: inout WireWriter) {
        switch self {
        case .initialize: writer.write(UInt8(0))
        case .activate: writer.write(UInt8(1))
        case .deactivate: writer.write(UInt8(2))
        case .destroy: writer.write(UInt8(3))
        case .onCallback: writer.write(UInt8(4))
        case .start(let item): writer.write(UInt8(5)); writer.write(item)
        case .stop: writer.write(UInt8(6))
        case .focusChanged(let change): writer.write(UInt8(7)); writer.write(change)
        case .sessionChanged(let active): writer.write(UInt8(8)); writer.write(active)
        case .command(let command, let token): writer.write(UInt8(9)); writer.write(command); writer.write(token)
        case .displayChanged(let attached, let profile): writer.write(UInt8(10)); writer.write(attached); writer.write(profile)
        case .select(let id, let key, let token): writer.write(UInt8(11)); writer.write(id); writer.write(key); writer.write(token)
        case .limitsChanged(let limits): writer.write(UInt8(12)); writer.write(limits)
        case .childCount(let path): writer.write(UInt8(13)); writer.write(path)
        case .contentItem(let path): writer.write(UInt8(14)); writer.write(path)
        case .beginLoading(let path, let token): writer.write(UInt8(15)); writer.write(path); writer.write(token)
        case .play(let path, let token): writer.write(UInt8(16)); writer.write(path); writer.write(token)
        }
    }

    package init(from reader: inout WireReader) throws(WireError) {
        switch try reader.read(UInt8.self) {
        case 0: self = .initialize
        case 1: self = .activate
        case 2: self = .deactivate
        case 3: self = .destroy
        case 4: self = .onCallback
        case 5: self = .start(item: try reader.read())
        case 6: self = .stop
        case 7: self = .focusChanged(try reader.read())
        case 8: self = .sessionChanged(active: try reader.read())
        case 9: self = .command(try reader.read(), token: try reader.read())
        case 10: self = .displayChanged(attached: try reader.read(), profile: try reader.read())
        case 11: self = .select(templateID: try reader.read(), key: try reader.read(), token: try reader.read())
        case 12: self = .limitsChanged(try reader.read())
        case 13: self = .childCount(path: try reader.read())
        case 14: self = .contentItem(path: try reader.read())
        case 15: self = .beginLoading(path: try reader.read(), token: try reader.read())
        case 16: self = .play(path: try reader.read(), token: try reader.read())
        case let tag: throw .invalid("plugin call \(tag)")
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
