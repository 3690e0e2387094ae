import CDeckPlugin
import Glibc

/// One plugin instance behind a `deck_plugin_t`: the C struct, its descriptor strings, and the
/// Swift object once the host has called `init`.
final class PluginInstanceBox {
    let type: any DeckPlugin.Type
    let host: DeckHost
    var plugin: (any DeckPlugin)?
    /// The same object when it plays audio; cached so the audio thread never casts.
    var audioPlugin: (any DeckAudioPlugin)?
    let raw = UnsafeMutablePointer<deck_plugin_t>.allocate(capacity: 1)
    private let audio = UnsafeMutablePointer<deck_plugin_audio_t>.allocate(capacity: 1)
    private let session = UnsafeMutablePointer<deck_plugin_session_t>.allocate(capacity: 1)
    private let nowPlaying = UnsafeMutablePointer<deck_plugin_now_playing_t>.allocate(capacity: 1)
    private let ui = UnsafeMutablePointer<deck_plugin_ui_t>.allocate(capacity: 1)
    private let content = UnsafeMutablePointer<deck_plugin_content_t>.allocate(capacity: 1)
    /// The strings of the last content item handed over; they live until the next one.
    private var itemStrings: [UnsafeMutablePointer<CChar>] = []
    private let descriptor = UnsafeMutablePointer<deck_plugin_descriptor_t>.allocate(capacity: 1)
    private var strings: [UnsafeMutablePointer<CChar>] = []

    private init(type: any DeckPlugin.Type, host: DeckHost) {
        self.type = type
        self.host = host
    }

    /// Builds the C instance; the box stays alive until the host calls `destroy`.
    static func create(type: any DeckPlugin.Type, host: DeckHost) -> UnsafePointer<deck_plugin_t> {
        let box = PluginInstanceBox(type: type, host: host)
        box.fillDescriptor(type.descriptor)
        box.raw.initialize(to: deck_plugin_t())
        box.raw.pointee.desc = UnsafePointer(box.descriptor)
        box.raw.pointee.plugin_data = Unmanaged.passRetained(box).toOpaque()
        box.raw.pointee.`init` = { plugin in
            guard let box = PluginInstanceBox.from(plugin) else { return deck_status_t(DECK_E_INVALID) }
            return box.run("init") {
                let instance = try box.type.init(host: box.host)
                box.plugin = instance
                box.audioPlugin = instance as? any DeckAudioPlugin
            }
        }
        box.raw.pointee.activate = { plugin in
            guard let box = PluginInstanceBox.from(plugin), let instance = box.plugin else { return deck_status_t(DECK_E_STATE) }
            return box.run("activate") { try instance.activate() }
        }
        box.raw.pointee.deactivate = { plugin in PluginInstanceBox.from(plugin)?.plugin?.deactivate() }
        box.raw.pointee.destroy = { plugin in
            guard let data = plugin?.pointee.plugin_data else { return }
            let box = Unmanaged<PluginInstanceBox>.fromOpaque(data).takeRetainedValue()
            box.plugin = nil
            box.audioPlugin = nil
        }
        box.raw.pointee.get_extension = { plugin, id in
            guard let box = PluginInstanceBox.from(plugin), let id else { return nil }
            switch String(cString: id) {
            case DECK_EXT_AUDIO: return box.type is any DeckAudioPlugin.Type ? UnsafeRawPointer(box.audio) : nil
            case DECK_EXT_SESSION: return UnsafeRawPointer(box.session)
            case DECK_EXT_NOW_PLAYING: return box.type is any DeckNowPlayingPlugin.Type ? UnsafeRawPointer(box.nowPlaying) : nil
            case DECK_EXT_UI: return box.type is any DeckUIPlugin.Type ? UnsafeRawPointer(box.ui) : nil
            case DECK_EXT_CONTENT: return box.type is any DeckContentPlugin.Type ? UnsafeRawPointer(box.content) : nil
            default: return nil
            }
        }
        box.session.initialize(to: deck_plugin_session_t())
        box.session.pointee.focus_changed = { plugin, code, resume in
            guard let change = FocusChange(code: code, shouldResume: resume) else { return }
            PluginInstanceBox.from(plugin)?.plugin?.focusChanged(change)
        }
        box.session.pointee.session_changed = { plugin, active in PluginInstanceBox.from(plugin)?.plugin?.sessionChanged(active: active) }
        box.nowPlaying.initialize(to: deck_plugin_now_playing_t())
        box.nowPlaying.pointee.command = { plugin, command, token in
            guard let owner = PluginInstanceBox.from(plugin)?.plugin as? any DeckNowPlayingPlugin, let command,
                  let remote = RemoteCommand(command.pointee) else { return DECK_COMMAND_FAILED.rawValue }
            return owner.handle(remote, token: token).map { Int32($0.rawValue) } ?? DECK_COMMAND_PENDING.rawValue
        }
        box.fillUI()
        box.audio.initialize(to: deck_plugin_audio_t())
        box.audio.pointee.start = { plugin, item in
            guard let box = PluginInstanceBox.from(plugin), let audio = box.audioPlugin else { return deck_status_t(DECK_E_STATE) }
            return box.run("start") { try audio.start(item: item.map { String(cString: $0) }) }
        }
        box.audio.pointee.stop = { plugin in PluginInstanceBox.from(plugin)?.audioPlugin?.stop() }
        box.audio.pointee.render = { plugin, frames, out in
            guard let data = plugin?.pointee.plugin_data, let out else { return 0 }
            return Unmanaged<PluginInstanceBox>.fromOpaque(data)._withUnsafeGuaranteedRef { box in
                guard let audio = box.audioPlugin else { return 0 }
                return UInt32(clamping: audio.render(frames: Int(frames), into: out))
            }
        }
        box.raw.pointee.on_callback = { plugin in PluginInstanceBox.from(plugin)?.plugin?.onCallback() }
        return UnsafePointer(box.raw)
    }

    private func fillUI() {
        ui.initialize(to: deck_plugin_ui_t())
        ui.pointee.display_changed = { plugin, attached, _ in (PluginInstanceBox.from(plugin)?.plugin as? any DeckUIPlugin)?.displayChanged(attached: attached) }
        ui.pointee.select = { plugin, template, key, token in
            guard let key else { return }
            (PluginInstanceBox.from(plugin)?.plugin as? any DeckUIPlugin)?.select(templateID: template, key: String(cString: key), token: token)
        }
        ui.pointee.limits_changed = { plugin, limits in
            (PluginInstanceBox.from(plugin)?.plugin as? any DeckUIPlugin)?.limitsChanged(limits.map { String(cString: $0) } ?? "{}")
        }
        content.initialize(to: deck_plugin_content_t())
        content.pointee.child_count = { plugin, path in
            guard let tree = PluginInstanceBox.from(plugin)?.plugin as? any DeckContentPlugin else { return 0 }
            return tree.childCount(at: PluginInstanceBox.indexes(path)).map { Int32(clamping: $0) } ?? -1
        }
        content.pointee.item = { plugin, path, out in
            guard let box = PluginInstanceBox.from(plugin), let tree = box.plugin as? any DeckContentPlugin, let out else { return deck_status_t(DECK_E_STATE) }
            guard let item = tree.item(at: PluginInstanceBox.indexes(path)) else { return deck_status_t(DECK_E_INVALID) }
            box.itemStrings.forEach { free($0) }
            let fields = [item.id, item.title, item.subtitle, item.artworkURI].map { $0.map { strdup($0)! } }
            box.itemStrings = fields.compactMap { $0 }
            out.pointee = deck_content_item_t()
            out.pointee.id = fields[0].map { UnsafePointer($0) }
            out.pointee.title = fields[1].map { UnsafePointer($0) }
            out.pointee.subtitle = fields[2].map { UnsafePointer($0) }
            out.pointee.artwork_uri = fields[3].map { UnsafePointer($0) }
            out.pointee.playable = item.playable
            out.pointee.container = item.container
            out.pointee.streaming = item.streaming
            return deck_status_t(DECK_OK)
        }
        content.pointee.begin_loading = { plugin, path, token in
            (PluginInstanceBox.from(plugin)?.plugin as? any DeckContentPlugin)?.beginLoading(at: PluginInstanceBox.indexes(path), token: token)
        }
        content.pointee.play = { plugin, path, token in
            (PluginInstanceBox.from(plugin)?.plugin as? any DeckContentPlugin)?.play(at: PluginInstanceBox.indexes(path), token: token)
        }
    }

    /// "0/3" as [0, 3]; "" (or anything malformed) as the top.
    private static func indexes(_ path: UnsafePointer<CChar>?) -> [Int] {
        guard let path else { return [] }
        let parts = String(cString: path).split(separator: "/").map { Int($0) }
        return parts.contains(nil) ? [] : parts.map { $0! }
    }

    private static func from(_ plugin: UnsafePointer<deck_plugin_t>?) -> PluginInstanceBox? {
        guard let data = plugin?.pointee.plugin_data else { return nil }
        return Unmanaged<PluginInstanceBox>.fromOpaque(data).takeUnretainedValue()
    }

    /// Runs a throwing plugin call, logging a thrown error and turning it into a status.
    private func run(_ call: String, _ body: () throws -> Void) -> deck_status_t {
        do {
            try body()
            return deck_status_t(DECK_OK)
        } catch let error as DeckError {
            host.log(.error, "\(call) failed: \(error.message)")
            return error.code.rawValue
        } catch {
            host.log(.error, "\(call) failed: \(error)")
            return deck_status_t(DECK_E_INTERNAL)
        }
    }

    private func fillDescriptor(_ facts: PluginDescriptor) {
        func text(_ value: String?) -> UnsafePointer<CChar>? {
            guard let value else { return nil }
            let copy = strdup(value)!
            strings.append(copy)
            return UnsafePointer(copy)
        }
        descriptor.initialize(to: deck_plugin_descriptor_t())
        descriptor.pointee.abi = deck_abi_version_t(major: UInt32(DECK_ABI_VERSION_MAJOR), minor: UInt32(DECK_ABI_VERSION_MINOR),
                                                    patch: UInt32(DECK_ABI_VERSION_PATCH))
        descriptor.pointee.id = text(facts.id)
        descriptor.pointee.name = text(facts.name)
        descriptor.pointee.version = text(facts.version)
        descriptor.pointee.vendor = text(facts.vendor)
        descriptor.pointee.description = text(facts.description)
    }

    deinit {
        strings.forEach { free($0) }
        descriptor.deallocate()
        audio.deallocate()
        session.deallocate()
        nowPlaying.deallocate()
        itemStrings.forEach { free($0) }
        ui.deallocate()
        content.deallocate()
        raw.deallocate()
    }
}
