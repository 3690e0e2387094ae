import DeckMedia
/// A change the loop asks of the audio thread; applied between frames, in order.
enum AudioCommand: BitwiseCopyable {
    case open(stream: Int, source: RenderSource, gain: Float, counters: Unmanaged<StreamCounters>, buses: UInt8)
    case close(stream: Int)
    case ramp(stream: Int, target: Float, samples: Int, curve: GainRamp.Curve)
    /// Mixes the stream into these buses (one bit each).
    case route(stream: Int, buses: UInt8)
    /// Encodes these buses from the next frame, their packets tagged with `generation`, those of
    /// `tapBus` also handed to the packet tap (-1: none); a bus that was idle starts from a fresh
    /// encoder state.
    case activate(buses: UInt8, generation: Int, tapBus: Int)
    /// Copies the mix of bus 0 into this tap from the next frame.
    case tap(Unmanaged<PCMTap>)
}
