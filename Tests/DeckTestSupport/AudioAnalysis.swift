import Foundation

/// Decoding with tools nobody here wrote (ffmpeg, opusdec) and measuring what came out.
public enum AudioAnalysis {
    public struct Stereo {
        public var left: [Float]
        public var right: [Float]
        public var frames: Int { left.count }
    }

    /// Decodes any file or URL ffmpeg reads into 48 kHz stereo float.
    public static func decodeWithFFmpeg(_ input: String, extraInputOptions: [String] = [], seconds: Double? = nil) throws -> Stereo {
        let dir = TemporaryDirectory()
        let raw = dir.path + "/decoded.f32"
        var arguments = ["-v", "error", "-nostdin", "-y"] + extraInputOptions + ["-i", input]
        if let seconds { arguments += ["-t", String(seconds)] }
        arguments += ["-f", "f32le", "-ac", "2", "-ar", "48000", raw]
        let (status, output) = try runProgram("/usr/bin/ffmpeg", arguments)
        guard status == 0 else { throw CommandFailure(description: "ffmpeg failed (\(status)): \(output)") }
        return try readF32Stereo(raw)
    }

    /// The integrated loudness (LUFS) of `seconds` of `input` from `start`, as ffmpeg's ebur128
    /// filter measures it.
    public static func integratedLoudness(_ input: String, start: Double, seconds: Double) throws -> Double {
        let (status, output) = try runProgram("/usr/bin/ffmpeg", ["-nostats", "-nostdin", "-ss", String(start), "-t", String(seconds), "-i", input, "-vn",
                                                                  "-af", "ebur128", "-f", "null", "-"])
        guard status == 0, let line = output.split(separator: "\n").last(where: { $0.contains(" I: ") }),
              let value = line.split(separator: " ").compactMap({ Double($0) }).first else {
            throw CommandFailure(description: "ffmpeg's ebur128 gave no loudness (\(status)): \(output.suffix(500))")
        }
        return value
    }

    /// Decodes with opusdec to a WAV file and returns its sample frames per channel.
    public static func decodeWithOpusdec(_ path: String) throws -> Int {
        let dir = TemporaryDirectory()
        let wav = dir.path + "/decoded.wav"
        let (status, output) = try runProgram("/usr/bin/opusdec", ["--quiet", "--rate", "48000", path, wav])
        guard status == 0 else { throw CommandFailure(description: "opusdec failed (\(status)): \(output)") }
        let data = try Data(contentsOf: URL(fileURLWithPath: wav))
        // Find the "data" chunk of the RIFF file; 16-bit stereo is 4 bytes per frame.
        var offset = 12
        while offset + 8 <= data.count {
            let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
            let size = data[offset + 4..<offset + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            if id == "data" { return size / 4 }
            offset += 8 + size
        }
        throw CommandFailure(description: "no data chunk in \(wav)")
    }

    /// opusinfo's report; `warnings` are its lines that say WARNING or ERROR.
    public static func opusinfo(_ path: String) throws -> (status: Int32, output: String, warnings: [String]) {
        let (status, output) = try runProgram("/usr/bin/opusinfo", [path])
        let warnings = output.split(separator: "\n").map(String.init)
            .filter { $0.localizedCaseInsensitiveContains("warning") || $0.localizedCaseInsensitiveContains("error") }
        return (status, output, warnings)
    }

    public static func readF32Stereo(_ path: String) throws -> Stereo {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var stereo = Stereo(left: [], right: [])
        stereo.left.reserveCapacity(samples.count / 2)
        stereo.right.reserveCapacity(samples.count / 2)
        for frame in 0..<(samples.count / 2) {
            stereo.left.append(samples[frame * 2])
            stereo.right.append(samples[frame * 2 + 1])
        }
        return stereo
    }

    /// The frequency of the strongest spectral peak (FFT of 32768 samples from `start`, Hann window).
    public static func dominantFrequency(_ signal: [Float], start: Int = 4800) throws(AnalysisError) -> Double {
        let size = 32_768
        let samples = try window(signal, start: start, count: size)
        var real = samples.enumerated().map { i, sample in Double(sample) * (0.5 - 0.5 * cos(2 * .pi * Double(i) / Double(size - 1))) }
        var imaginary = [Double](repeating: 0, count: size)
        fft(&real, &imaginary)
        var best = 1
        var bestPower = 0.0
        for bin in 1..<(size / 2) {
            let power = real[bin] * real[bin] + imaginary[bin] * imaginary[bin]
            if power > bestPower { bestPower = power; best = bin }
        }
        return Double(best) * 48_000 / Double(size)
    }

    /// Signal-to-noise ratio in dB of a sine at `frequency`: the best-fitting sine (least squares)
    /// over the window is the signal, what is left is the noise.
    public static func sineSNR(_ signal: [Float], frequency: Double, start: Int = 4800, count: Int = 48_000) throws(AnalysisError) -> Double {
        let (window, omega, a, b) = try fitSine(signal, frequency: frequency, start: start, count: count)
        var signalEnergy = 0.0, noiseEnergy = 0.0
        for (n, y) in window.enumerated() {
            let fit = a * sin(omega * Double(n)) + b * cos(omega * Double(n))
            signalEnergy += fit * fit
            noiseEnergy += (y - fit) * (y - fit)
        }
        return 10 * log10(signalEnergy / max(noiseEnergy, 1e-20))
    }

    /// The peak amplitude of the sine at `frequency` that best fits `count` samples from `start`.
    public static func sineAmplitude(_ signal: [Float], frequency: Double, start: Int, count: Int = 24_000) throws(AnalysisError) -> Double {
        let (_, _, a, b) = try fitSine(signal, frequency: frequency, start: start, count: count)
        return (a * a + b * b).squareRoot()
    }

    /// The least-squares fit a·sin(ωn) + b·cos(ωn) over the window (cut short at the signal's end).
    private static func fitSine(_ signal: [Float], frequency: Double, start: Int, count: Int) throws(AnalysisError)
        -> (window: [Double], omega: Double, a: Double, b: Double) {
        let window = try Self.window(signal, start: start, count: max(0, min(count, signal.count - start))).map(Double.init)
        let omega = 2 * Double.pi * frequency / 48_000
        var ss = 0.0, cc = 0.0, sc = 0.0, ys = 0.0, yc = 0.0
        for (n, y) in window.enumerated() {
            let s = sin(omega * Double(n)), c = cos(omega * Double(n))
            ss += s * s; cc += c * c; sc += s * c; ys += y * s; yc += y * c
        }
        let det = ss * cc - sc * sc
        return (window, omega, (ys * cc - yc * sc) / det, (yc * ss - ys * sc) / det)
    }

    /// `count` samples from `start`; a window past either end is a failed analysis, not a trap.
    private static func window(_ signal: [Float], start: Int, count: Int) throws(AnalysisError) -> ArraySlice<Float> {
        guard start >= 0, count > 0, start <= signal.count - count else { throw .outside(start: start, count: count, have: signal.count) }
        return signal[start..<(start + count)]
    }

    /// The level of everything above `frequency` in `count` samples from `start` (Hann window), in
    /// dB relative to a full-scale sine: how loud a click is.
    public static func levelAbove(_ frequency: Double, in signal: [Float], start: Int, count: Int = 2_048) throws(AnalysisError) -> Double {
        let samples = try Self.window(signal, start: start, count: count)
        let window = (0..<count).map { 0.5 - 0.5 * cos(2 * .pi * Double($0) / Double(count - 1)) }
        var real = samples.enumerated().map { Double($1) * window[$0] }
        var imaginary = [Double](repeating: 0, count: count)
        fft(&real, &imaginary)
        let first = Int((frequency * Double(count) / 48_000).rounded(.up))
        let band = (first..<(count / 2)).reduce(0.0) { $0 + real[$1] * real[$1] + imaginary[$1] * imaginary[$1] }
        let windowPower = window.reduce(0) { $0 + $1 * $1 } / Double(count)
        let meanSquare = 2 * band / Double(count * count) / windowPower
        return 10 * log10(max(meanSquare, 1e-30) / 0.5)
    }

    public static func rms(_ signal: ArraySlice<Float>) -> Double {
        sqrt(signal.reduce(0) { $0 + Double($1) * Double($1) } / Double(max(signal.count, 1)))
    }

    /// In-place iterative radix-2 FFT.
    private static func fft(_ real: inout [Double], _ imaginary: inout [Double]) {
        let n = real.count
        var j = 0
        for i in 1..<n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { real.swapAt(i, j); imaginary.swapAt(i, j) }
        }
        var length = 2
        while length <= n {
            let angle = -2 * Double.pi / Double(length)
            for start in stride(from: 0, to: n, by: length) {
                for k in 0..<(length / 2) {
                    let wr = cos(angle * Double(k)), wi = sin(angle * Double(k))
                    let a = start + k, b = a + length / 2
                    let tr = real[b] * wr - imaginary[b] * wi, ti = real[b] * wi + imaginary[b] * wr
                    real[b] = real[a] - tr; imaginary[b] = imaginary[a] - ti
                    real[a] += tr; imaginary[a] += ti
                }
            }
            length <<= 1
        }
    }
}

extension AudioAnalysis {
    /// The longest stretch, in milliseconds, of `signal` (48 kHz) whose 1 ms windows all stay
    /// under `threshold` RMS, between `start` and `end` samples: a gap in audio that should flow.
    public static func longestGapMilliseconds(_ signal: [Float], threshold: Double = 0.01, start: Int = 0, end: Int? = nil) -> Int {
        let stop = min(end ?? signal.count, signal.count)
        var longest = 0, current = 0, index = start
        while index + 48 <= stop {
            if rms(signal[index..<index + 48]) < threshold { current += 1; longest = max(longest, current) } else { current = 0 }
            index += 48
        }
        return longest
    }
}

/// An analysis asked for samples the decoded audio does not have (it came out too short).
public enum AnalysisError: Error, CustomStringConvertible {
    case outside(start: Int, count: Int, have: Int)

    public var description: String {
        switch self {
        case let .outside(start, count, have): "the analysis needs samples \(start)..<\(start + count), the audio has \(have)"
        }
    }
}
