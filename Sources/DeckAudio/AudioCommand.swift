/// A change the loop asks of the audio thread; applied between frames, in order.
enum AudioCommand: BitwiseCopyable {
    case open(stream: Int, source: RenderSource, gain: Float, counters: Unmanaged<StreamCounters>)
    case close(stream: Int)
    case ramp(stream: Int, target: Float, samples: Int, curve: GainRamp.Curve)
}
