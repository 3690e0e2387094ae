import COpus

/// A libopus encoder for 48 kHz stereo float, configured once. Used by one thread at a time.
package final class OpusEncoder {
    private let encoder: OpaquePointer
    let frameSamples: Int
    /// Samples of encoder delay the decoder discards (the Ogg pre-skip).
    package let lookahead: Int
    /// Largest packet the encoder writes: a frame of 20 ms or less is one Opus frame, at most 1275
    /// bytes and its TOC byte (RFC 6716 §3.2; libopus caps it there); longer frames are several
    /// in one packet, for which RFC 6716 recommends 4000.
    package let maxPacketBytes: Int

    package init(settings: EncoderSettings, frameSamples: Int) throws(AudioConfigurationError) {
        try settings.validate()
        var error: Int32 = 0
        let application = switch settings.application {
        case .audio: OPUS_APPLICATION_AUDIO
        case .lowdelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        case .voip: OPUS_APPLICATION_VOIP
        }
        guard let encoder = opus_encoder_create(Int32(AudioFormat.sampleRate), Int32(AudioFormat.channels),
                                                application, &error), error == OPUS_OK else {
            throw .encoder(String(cString: opus_strerror(error)))
        }
        self.encoder = encoder
        self.frameSamples = frameSamples
        maxPacketBytes = frameSamples <= AudioFormat.sampleRate / 50 ? 1276 : 4000
        var lookahead: Int32 = 0
        let results = [
            deck_opus_set_bitrate(encoder, Int32(settings.bitrate)),
            deck_opus_set_complexity(encoder, Int32(settings.complexity)),
            deck_opus_set_inband_fec(encoder, settings.inbandFEC ? 1 : 0),
            deck_opus_set_packet_loss_perc(encoder, Int32(settings.expectedPacketLoss)),
            deck_opus_set_dtx(encoder, settings.dtx ? 1 : 0),
            deck_opus_get_lookahead(encoder, &lookahead),
        ]
        if let failure = results.first(where: { $0 != OPUS_OK }) {
            opus_encoder_destroy(encoder)
            throw .encoder(String(cString: opus_strerror(failure)))
        }
        self.lookahead = Int(lookahead)
    }

    deinit { opus_encoder_destroy(encoder) }

    /// Forgets the audio encoded so far, as a fresh encoder would (same delay). Never allocates.
    package func reset() { _ = deck_opus_reset(encoder) }

    /// Encodes one frame of interleaved stereo into `packet`, which holds `maxPacketBytes`; returns
    /// the packet's length, or a negative libopus error. Never allocates.
    package func encode(_ pcm: UnsafePointer<Float>, into packet: UnsafeMutablePointer<UInt8>) -> Int {
        Int(opus_encode_float(encoder, pcm, Int32(frameSamples), packet, Int32(maxPacketBytes)))
    }
}
