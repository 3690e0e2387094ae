/// The runtime's answers to a plugin's `deck.audio` host calls, by instance number. The plugin
/// subsystem knows nothing of the audio engine; the runtime supplies these.
final class AudioHostActions: @unchecked Sendable {  // The closures run only on the loop thread: PluginHost checks before calling.
    let open: (Int) -> PluginCallError?
    let close: (Int) -> PluginCallError?
    /// The audio thread, for `deck.thread-check`'s is_audio_thread.
    let audioThread: ThreadIdentity

    init(audioThread: ThreadIdentity, open: @escaping (Int) -> PluginCallError?, close: @escaping (Int) -> PluginCallError?) {
        self.audioThread = audioThread
        self.open = open
        self.close = close
    }
}
