import DeckBase
import DeckNowPlaying
import DeckSession

/// The runtime's answers to a plugin's host calls that reach beyond the plugin subsystem
/// (`deck.audio`, `deck.session`, `deck.now-playing`, `deck.ui`, `deck.content`), by instance number. The plugin subsystem knows nothing of the
/// audio engine or the session; the runtime supplies these.
package final class HostActions: @unchecked Sendable {  // The closures run only on the loop thread: PluginHost checks before calling.
    package let openStream: (Int) -> PluginCallError?
    package let closeStream: (Int) -> PluginCallError?
    /// Returns the answer, or the error when the request itself is invalid.
    package let requestFocus: (Int, AudioContext, FocusRequestType, _ acceptsDelayed: Bool, _ pausesOnDuck: Bool) -> Result<FocusResult, PluginCallError>
    package let abandonFocus: (Int) -> PluginCallError?
    package let nowPlaying: (Int, NowPlayingCall) -> PluginCallError?
    package let ui: (Int, UICall) -> Result<UIAnswer, PluginCallError>
    /// The audio thread, for `deck.thread-check`'s is_audio_thread.
    let audioThread: ThreadIdentity

    package init(audioThread: ThreadIdentity,
         openStream: @escaping (Int) -> PluginCallError?, closeStream: @escaping (Int) -> PluginCallError?,
         requestFocus: @escaping (Int, AudioContext, FocusRequestType, Bool, Bool) -> Result<FocusResult, PluginCallError>,
         abandonFocus: @escaping (Int) -> PluginCallError?,
         nowPlaying: @escaping (Int, NowPlayingCall) -> PluginCallError?,
         ui: @escaping (Int, UICall) -> Result<UIAnswer, PluginCallError>) {
        self.audioThread = audioThread
        self.openStream = openStream
        self.closeStream = closeStream
        self.requestFocus = requestFocus
        self.abandonFocus = abandonFocus
        self.nowPlaying = nowPlaying
        self.ui = ui
    }
}
