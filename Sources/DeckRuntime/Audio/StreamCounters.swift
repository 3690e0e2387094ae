import CDeckPlugin
import Synchronization

/// What happened to one stream on the audio thread, readable from the loop at any time.
public final class StreamCounters: Sendable {
    /// Frames the plugin rendered in full.
    public let renderedFrames = Atomic<Int>(0)
    /// Frames it under-delivered (padded with silence).
    public let underrunFrames = Atomic<Int>(0)
    /// Frames silenced because it wrote NaN or infinity.
    public let invalidFrames = Atomic<Int>(0)
    /// Frames in which it wrote samples beyond full scale (±1.0); the mix limits them.
    public let clippedFrames = Atomic<Int>(0)
    /// Frames in a row, up to now, that were silent (rendered or padded): a starving stream.
    public let silentRun = Atomic<Int>(0)

    public init() {}
}

/// A plugin's render function and the plugin it belongs to: what the audio thread pulls.
public struct RenderSource: BitwiseCopyable, @unchecked Sendable {  // Plain pointers; the plugin promises render() is callable from the audio thread.
    public typealias Render = @convention(c) (UnsafePointer<deck_plugin_t>?, UInt32, UnsafeMutablePointer<Float>?) -> UInt32
    public let plugin: UnsafePointer<deck_plugin_t>
    public let render: Render

    public init(plugin: UnsafePointer<deck_plugin_t>, render: @escaping Render) {
        self.plugin = plugin
        self.render = render
    }
}
