import CDeckPlugin
import DeckBase

/// The `deck_host_t` and the host extensions for one plugin, at fixed addresses.
final class HostStructs: @unchecked Sendable {  // Written once in `fill` before the plugin sees them, then read-only.
    let host = UnsafeMutablePointer<deck_host_t>.allocate(capacity: 1)
    let threadCheck = UnsafeMutablePointer<deck_host_thread_check_t>.allocate(capacity: 1)
    let audio = UnsafeMutablePointer<deck_host_audio_t>.allocate(capacity: 1)
    let session = UnsafeMutablePointer<deck_host_session_t>.allocate(capacity: 1)
    let nowPlaying = UnsafeMutablePointer<deck_host_now_playing_t>.allocate(capacity: 1)
    let ui = UnsafeMutablePointer<deck_host_ui_t>.allocate(capacity: 1)
    let content = UnsafeMutablePointer<deck_host_content_t>.allocate(capacity: 1)
    private let name = CStringBox("Deck")
    private let version = CStringBox(DeckVersion.string)

    func fill(context: UnsafeMutableRawPointer) {
        host.initialize(to: deck_host_t())
        host.pointee.abi = deck_abi_version_t(major: PluginABI.major, minor: PluginABI.minor, patch: PluginABI.patch)
        host.pointee.host_data = context
        host.pointee.name = UnsafePointer(name.pointer)
        host.pointee.version = UnsafePointer(version.pointer)
        host.pointee.get_extension = { host, id in
            guard let owner = PluginHost.from(host), let id else { return nil }
            switch String(cString: id) {
            case DECK_EXT_THREAD_CHECK: return UnsafeRawPointer(owner.structs.threadCheck)
            case DECK_EXT_AUDIO: return UnsafeRawPointer(owner.structs.audio)
            case DECK_EXT_SESSION: return UnsafeRawPointer(owner.structs.session)
            case DECK_EXT_NOW_PLAYING: return UnsafeRawPointer(owner.structs.nowPlaying)
            case DECK_EXT_UI: return UnsafeRawPointer(owner.structs.ui)
            case DECK_EXT_CONTENT: return UnsafeRawPointer(owner.structs.content)
            default: return nil
            }
        }
        host.pointee.log = { host, level, message in
            guard let owner = PluginHost.from(host), let message else { return }
            owner.log(LogLevel(rawValue: Int(level.rawValue)) ?? .info, message)
        }
        host.pointee.last_error = { host in
            PluginHost.from(host)?.lastErrorPointer
        }
        host.pointee.request_callback = { host in
            guard let owner = PluginHost.from(host) else { return DeckStatus.invalid.rawValue }
            guard owner.currentPhase != .destroyed else {
                if owner.loopThread.isCurrent { return owner.fail(.state, "request_callback: the plugin is destroyed") }
                return owner.failOffLoop(.state, "request_callback", ": the plugin is destroyed")
            }
            owner.requestCallback()
            return DeckStatus.ok.rawValue
        }
        host.pointee.has_entitlement = { host, category in
            guard let owner = PluginHost.from(host), let category,
                  let entitlement = Entitlement(rawValue: String(cString: category)) else { return false }
            return owner.entitlements.contains(entitlement)
        }
        host.pointee.data_path = { host in
            PluginHost.from(host)?.dataFolderPointer
        }
        host.pointee.has_permission = { host, name in
            guard let owner = PluginHost.from(host), let name, let permission = Permission(rawValue: String(cString: name)) else { return false }
            return owner.permissions.contains(permission)
        }
        host.pointee.settings = { host in
            PluginHost.from(host)?.settingsPointer
        }
        threadCheck.initialize(to: PluginHost.threadCheckExtension)
        audio.initialize(to: PluginHost.audioExtension)
        session.initialize(to: PluginHost.sessionExtension)
        nowPlaying.initialize(to: PluginHost.nowPlayingExtension)
        ui.initialize(to: PluginHost.uiExtension)
        content.initialize(to: PluginHost.contentExtension)
    }

    deinit {
        host.deallocate()
        threadCheck.deallocate()
        audio.deallocate()
        session.deallocate()
        nowPlaying.deallocate()
        ui.deallocate()
        content.deallocate()
    }
}
