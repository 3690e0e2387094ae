import CEspeakNG
import Glibc

/// A sentence spoken by espeak-ng, as 48 kHz stereo samples ready to render.
struct Speech {
    let samples: [Float]

    var frames: Int { samples.count / 2 }

    /// Whether any of it is louder than −50 dBFS: espeak-ng says a text of punctuation alone
    /// ("...", a dash) as a few milliseconds of silence.
    var isAudible: Bool { samples.contains { abs($0) > 0.003 } }

    /// Synthesises `text` (synchronously, on the calling thread, in a child process that espeak-ng
    /// may crash) and resamples it to 48 kHz stereo.
    static func synthesize(_ text: String, voice: String = "en") throws -> Speech {
        let rate = try Synthesizer.start(voice: voice)
        let mono = try Synthesizer.speak(text)
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

/// espeak-ng's process-wide state, initialised once; each text is spoken in a child process.
/// Used from the loop thread only.
private enum Synthesizer {
    nonisolated(unsafe) static var sampleRate: Int?
    /// The longest a child may take: 500 characters take about 35 ms.
    static let timeoutMilliseconds = 5_000

    static func start(voice: String) throws -> Int {
        if let sampleRate { return sampleRate }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { throw SpeechError("espeak-ng did not start (is espeak-ng-data installed?)") }
        // Checked before the resampler divides by it and converts positions to indexes.
        guard (8_000...192_000).contains(rate) else { throw SpeechError("espeak-ng speaks at \(rate) Hz, outside 8–192 kHz") }
        guard espeak_SetVoiceByName(voice) == EE_OK else { throw SpeechError("espeak-ng has no voice \"\(voice)\"") }
        sampleRate = Int(rate)
        return Int(rate)
    }

    /// The samples of `text`, made by a child process: espeak-ng overflows its buffers on some
    /// texts (`.a` 90 times aborts 1.51), which then refuse the prompt rather than end the app.
    static func speak(_ text: String) throws -> [Int16] {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw SpeechError("no pipe to speak through: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let pid = text.withCString { deck_espeak_spawn($0, ends[0], ends[1]) }
        close(ends[1])
        defer { close(ends[0]) }
        guard pid > 0 else { throw SpeechError("no process to speak in: \(String(cString: strerror(errno)))") }
        let (bytes, finished) = read(ends[0])
        if !finished { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f, code = (status >> 8) & 0xff
        guard finished else { throw SpeechError("espeak-ng did not finish the text within \(timeoutMilliseconds / 1000) s") }
        guard signal == 0 else { throw SpeechError("espeak-ng crashed on the text (\(String(cString: strsignal(signal)))); reword it") }
        guard code == 0 else { throw SpeechError("espeak-ng could not speak the text") }
        return bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(bytes.count / 2)) }
    }

    /// What the child writes until it closes its end; false when it took longer than the timeout.
    private static func read(_ fd: Int32) -> (bytes: [UInt8], finished: Bool) {
        var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
        var start = timespec(), now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        while true {
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = timeoutMilliseconds - (now.tv_sec - start.tv_sec) * 1_000 - (now.tv_nsec - start.tv_nsec) / 1_000_000
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard left > 0, poll(&poller, 1, Int32(left)) >= 0 || errno == EINTR else { return (bytes, false) }
            guard poller.revents != 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return (bytes, true) }
            bytes += chunk[..<count]
        }
    }
}

struct SpeechError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
