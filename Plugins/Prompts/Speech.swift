import CEspeakNG
import Glibc

/// A sentence spoken by espeak-ng, as 48 kHz stereo samples ready to render.
struct Speech {
    let samples: [Float]

    var frames: Int { samples.count / 2 }

    /// Synthesises `text` (synchronously, on the calling thread) and resamples it to 48 kHz stereo.
    static func synthesize(_ text: String, voice: String = "en") throws -> Speech {
        let rate = try Synthesizer.start(voice: voice)
        Synthesizer.collected = []
        let status = text.withCString { pointer in
            espeak_Synth(pointer, strlen(pointer) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        guard status == EE_OK else { throw SpeechError("espeak-ng could not speak the text (error \(status.rawValue))") }
        let mono = Synthesizer.collected
        Synthesizer.collected = []
        guard !mono.isEmpty else { throw SpeechError("espeak-ng made no sound for the text") }
        return Speech(samples: resample(mono, from: rate))
    }

    /// Linear interpolation from `rate` (8–192 kHz, checked by `Synthesizer.start`) to 48 kHz, each
    /// sample on both channels at −3 dBFS peak room. Positions are whole-number ratios, so no
    /// floating-point value is ever converted to an index.
    static func resample(_ mono: [Int16], from rate: Int) -> [Float] {
        let count = mono.count * 48_000 / rate
        var out = [Float](repeating: 0, count: count * 2)
        for index in 0..<count {
            let (base, remainder) = (index * rate).quotientAndRemainder(dividingBy: 48_000)
            let next = min(base + 1, mono.count - 1)
            let fraction = Float(remainder) / 48_000
            let value = (Float(mono[base]) * (1 - fraction) + Float(mono[next]) * fraction) / 32768 * 0.7
            out[index * 2] = value
            out[index * 2 + 1] = value
        }
        return out
    }
}

/// espeak-ng's process-wide state: initialised once, its synthesis callback collecting samples.
/// Used from the loop thread only.
private enum Synthesizer {
    nonisolated(unsafe) static var collected: [Int16] = []
    nonisolated(unsafe) static var sampleRate: Int?

    static func start(voice: String) throws -> Int {
        if let sampleRate { return sampleRate }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { throw SpeechError("espeak-ng did not start (is espeak-ng-data installed?)") }
        // Checked before the resampler divides by it and converts positions to indexes.
        guard (8_000...192_000).contains(rate) else { throw SpeechError("espeak-ng speaks at \(rate) Hz, outside 8–192 kHz") }
        espeak_SetSynthCallback { wav, count, _ in
            if let wav, count > 0 { Synthesizer.collected.append(contentsOf: UnsafeBufferPointer(start: wav, count: Int(count))) }
            return 0
        }
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw SpeechError("espeak-ng has no voice \"\(voice)\"") }
        sampleRate = Int(rate)
        return Int(rate)
    }
}

struct SpeechError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
