import CDeckPlugin
import DeckMedia
import DeckBase
import DeckNowPlaying
import DeckSession
import DeckUI
import Glibc

/// A plugin whose code runs in this process: its library, entry and instance, called directly
/// through the C ABI. Loop-thread-confined.
package final class InProcessPluginCode: PluginCode {
    private let library: PluginLibrary
    private let entry: UnsafePointer<deck_plugin_entry_t>
    private let plugin: UnsafePointer<deck_plugin_t>
    private let logger: Logger
    private let id: String
    /// The plugin's extensions the runtime calls, found after its init.
    private var audio: UnsafePointer<deck_plugin_audio_t>?
    private var session: UnsafePointer<deck_plugin_session_t>?
    private var nowPlaying: UnsafePointer<deck_plugin_now_playing_t>?
    private var ui: UnsafePointer<deck_plugin_ui_t>?
    private var content: UnsafePointer<deck_plugin_content_t>?

    init(library: PluginLibrary, entry: UnsafePointer<deck_plugin_entry_t>, plugin: UnsafePointer<deck_plugin_t>, id: String,
         logger: Logger) {
        self.library = library
        self.entry = entry
        self.plugin = plugin
        self.id = id
        self.logger = logger
    }

    package var isSwift: Bool { library.isSwift }
    package var processID: Int32? { nil }
    package func terminate(because reason: String) -> Bool { false }

    package func initialize() -> DeckStatus {
        let status = DeckStatus(code: plugin.pointee.`init`(plugin))
        guard status == .ok else { return status }
        if let pointer = plugin.pointee.get_extension?(plugin, DECK_EXT_AUDIO) {
            let audio = pointer.assumingMemoryBound(to: deck_plugin_audio_t.self)
            if audio.pointee.start != nil && audio.pointee.stop != nil && audio.pointee.render != nil {
                self.audio = audio
            } else {
                logger.warning("plugins", plugin: id, "\(id): ignoring its deck.audio extension: start, stop or render is NULL")
            }
        }
        session = plugin.pointee.get_extension?(plugin, DECK_EXT_SESSION)?.assumingMemoryBound(to: deck_plugin_session_t.self)
        nowPlaying = plugin.pointee.get_extension?(plugin, DECK_EXT_NOW_PLAYING)?.assumingMemoryBound(to: deck_plugin_now_playing_t.self)
        if nowPlaying != nil && nowPlaying?.pointee.command == nil {
            logger.warning("plugins", plugin: id, "\(id): ignoring its deck.now-playing extension: command is NULL")
            nowPlaying = nil
        }
        ui = plugin.pointee.get_extension?(plugin, DECK_EXT_UI)?.assumingMemoryBound(to: deck_plugin_ui_t.self)
        if ui != nil && (ui?.pointee.display_changed == nil || ui?.pointee.select == nil) {
            logger.warning("plugins", plugin: id, "\(id): ignoring its deck.ui extension: display_changed or select is NULL")
            ui = nil
        }
        content = plugin.pointee.get_extension?(plugin, DECK_EXT_CONTENT)?.assumingMemoryBound(to: deck_plugin_content_t.self)
        if let table = content?.pointee, table.child_count == nil || table.item == nil || table.begin_loading == nil || table.play == nil {
            logger.warning("plugins", plugin: id, "\(id): ignoring its deck.content extension: child_count, item, begin_loading or play is NULL")
            content = nil
        }
        return .ok
    }

    package func activate() -> DeckStatus { DeckStatus(code: plugin.pointee.activate(plugin)) }

    package func deactivate() { plugin.pointee.deactivate(plugin) }

    package func destroy() {
        plugin.pointee.destroy(plugin)
        entry.pointee.deinit?()
        library.close()
    }

    package func extensionPointer(_ id: String) -> UnsafeRawPointer? { plugin.pointee.get_extension?(plugin, id) }

    package func onCallback() { plugin.pointee.on_callback?(plugin) }

    package var offersAudio: Bool { audio != nil }

    package func start(item: String?) -> DeckStatus {
        guard let audio else { return .unsupported }
        return DeckStatus(code: item.map { audio.pointee.start(plugin, $0) } ?? audio.pointee.start(plugin, nil))
    }

    package func stop() { audio?.pointee.stop(plugin) }

    package var framesAhead: Double? { nil }

    package var lateFrames: Int? { nil }

    package func closeStream(_ close: () -> Void) { close() }

    package var renderSource: RenderSource? {
        guard let render = audio?.pointee.render else { return nil }
        return RenderSource(plugin: plugin, render: render)
    }

    package func focusChanged(_ change: FocusChange) {
        guard let callback = session?.pointee.focus_changed else { return }
        let resume = if case .gain(let shouldResume) = change { shouldResume } else { false }
        callback(plugin, change.code.rawValue, resume)
    }

    package func sessionChanged(active: Bool) { session?.pointee.session_changed?(plugin, active) }

    package var offersNowPlaying: Bool { nowPlaying != nil }

    package func command(_ command: RemoteCommand, token: UInt64) -> CommandResult? {
        guard let handler = nowPlaying?.pointee.command else { return .commandFailed }
        var raw = command.raw
        let answer = handler(plugin, &raw, token)
        if answer == DECK_COMMAND_PENDING.rawValue { return nil }
        guard let result = CommandResult(rawValue: Int(answer)) else {
            logger.warning("plugins", plugin: id, "\(id) answered \(command.kind.name) with \(answer), not a deck_command_result_t; read as commandFailed")
            return .commandFailed
        }
        return result
    }

    package var offersUI: Bool { ui != nil }

    package func displayChanged(attached: Bool, profile: String) { ui?.pointee.display_changed(plugin, attached, profile) }

    package func select(templateID: UInt64, key: String, token: UInt64) { ui?.pointee.select(plugin, templateID, key, token) }

    package func limitsChanged(_ limits: String) { ui?.pointee.limits_changed?(plugin, limits) }

    package var offersContent: Bool { content != nil }

    package func childCount(path: String) -> Int { Int(content?.pointee.child_count(plugin, path) ?? 0) }

    package func contentItem(path: String) -> Result<ContentItem, PluginCallError> {
        guard let read = content?.pointee.item else { return .failure(PluginCallError(status: .unsupported, message: "no deck.content")) }
        // The item may point into `path` (a plugin whose ids are its paths): it stays alive until copied.
        return path.withCString { cPath in
            var raw = deck_content_item_t()
            let status = DeckStatus(code: read(plugin, cPath, &raw))
            guard status == .ok else { return .failure(PluginCallError(status: status, message: "item(\"\(path)\") returned \(status)")) }
            return copy(raw, path: path)
        }
    }

    /// The Swift copy of the item a plugin filled, its strings checked.
    private func copy(_ raw: deck_content_item_t, path: String) -> Result<ContentItem, PluginCallError> {
        func text(_ pointer: UnsafePointer<CChar>?, _ field: String) throws(PluginCallError) -> String? {
            guard let pointer else { return nil }
            guard strnlen(pointer, 4097) <= 4096 else { throw PluginCallError(status: .limit, message: "item(\"\(path)\"): \(field) is over 4096 bytes") }
            guard let value = String(validatingCString: pointer) else {
                throw PluginCallError(status: .invalid, message: "item(\"\(path)\"): \(field) is not valid UTF-8")
            }
            return value
        }
        do throws(PluginCallError) {
            guard let id = try text(raw.id, "id"), !id.isEmpty, let title = try text(raw.title, "title") else {
                throw PluginCallError(status: .invalid, message: "item(\"\(path)\") has no id or no title")
            }
            var item = ContentItem(id: id, title: title)
            item.subtitle = try text(raw.subtitle, "subtitle")
            item.artworkURI = try text(raw.artwork_uri, "artwork_uri")
            item.playable = raw.playable
            item.container = raw.container
            item.streaming = raw.streaming
            return .success(item)
        } catch {
            return .failure(error)
        }
    }

    package func beginLoading(path: String, token: UInt64) { content?.pointee.begin_loading(plugin, path, token) }

    package func play(path: String, token: UInt64) { content?.pointee.play(plugin, path, token) }
}
