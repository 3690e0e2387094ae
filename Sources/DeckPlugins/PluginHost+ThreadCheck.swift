import CDeckPlugin

/// `deck.thread-check` on the host side: which thread is calling (deck/ext/thread-check.h).
extension PluginHost {
    static var threadCheckExtension: deck_host_thread_check_t {
        deck_host_thread_check_t(
            is_loop_thread: { host in PluginHost.from(host)?.loopThread.isCurrent ?? false },
            is_audio_thread: { host in PluginHost.from(host)?.actions.audioThread.isCurrent ?? false })
    }
}
