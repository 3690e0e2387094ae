import CDeckPlugin

/// `deck.audio` on the host side: a plugin opens and closes its stream and asks whether the
/// output is freewheeling (deck/ext/audio.h).
extension PluginHost {
    static var audioExtension: deck_host_audio_t {
        var audio = deck_host_audio_t()
        audio.open_stream = { host in
            PluginHost.from(host)?.onLoop("open_stream") { $0.actions.openStream($0.instance) } ?? DeckStatus.invalid.rawValue
        }
        audio.close_stream = { host in
            PluginHost.from(host)?.onLoop("close_stream") { $0.actions.closeStream($0.instance) } ?? DeckStatus.invalid.rawValue
        }
        audio.is_freewheeling = { host in PluginHost.from(host)?.isFreewheeling ?? false }
        return audio
    }
}
