import CDeckPlugin

/// A plugin's render function and the plugin it belongs to: what the audio thread pulls.
public struct RenderSource: BitwiseCopyable, @unchecked Sendable {  // Plain pointers; the plugin promises render() is callable from the audio thread.
    public typealias Render = @convention(c) (UnsafePointer<deck_plugin_t>?, UInt32, UnsafeMutablePointer<Float>?) -> UInt32
    /// The SCHED_FIFO priority of the output thread, and of isolated plugins' render threads.
    public static let realtimePriority: Int32 = 10

    public let plugin: UnsafePointer<deck_plugin_t>
    public let render: Render

    public init(plugin: UnsafePointer<deck_plugin_t>, render: @escaping Render) {
        self.plugin = plugin
        self.render = render
    }
}
