/// A change the loop asks of the audio thread; applied between frames, in order.
enum AudioCommand: BitwiseCopyable {
    case open(slot: Int, source: RenderSource, gain: Float, counters: Unmanaged<StreamCounters>)
    case close(slot: Int)
    case ramp(slot: Int, target: Float, samples: Int, curve: GainRamp.Curve)
}
