import DeckTestSupport
import Foundation
import Testing

/// The voice prompts app (Plugins/Prompts): a sentence spoken by espeak-ng under navigation focus
/// ducks the music, which comes back once the prompt is said, judged on the rendered file.
@Suite struct PromptsTests {
    /// The 440 Hz tone's amplitude and what is left besides it, per 100 ms window.
    private func windows(_ signal: [Float]) throws -> [(tone: Double, rest: Double)] {
        try stride(from: 0, to: signal.count - 4_800, by: 4_800).map { start in
            let tone = try AudioAnalysis.sineAmplitude(signal, frequency: 440, start: start, count: 4_800)
            let rms = AudioAnalysis.rms(signal[start..<start + 4_800])
            return (tone, max(0, rms * rms - tone * tone / 2).squareRoot())
        }
    }

    @Test func aSpokenPromptDucksTheMusicWhichComesBackAfter() throws {
        let dir = TemporaryDirectory()
        let output = dir.path + "/out.opus"
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none", "--sink", "file:\(output)",
                                      "--play", "org.deck.tone:sine-440"])
        #expect(deckd.waitForLog("org.deck.tone: playing sine-440"), "\(deckd.log)")
        try deckd.waitForFrames(40)
        let launched = try deckd.deckctl(["launch", "org.deck.prompts", "Turn left in two hundred metres, then keep right."])
        #expect(launched.output.contains("org.deck.prompts: active"), "\(launched.output)")
        let during = try deckd.deckctl(["session"]).output
        #expect(during.contains("org.deck.tone  music  gain  ducked  gain -14.0 dB"), "the duck's level, as the volume's are shown: \(during)")
        #expect(during.contains("org.deck.prompts  navigation  gainTransientMayDuck  playing"), "\(during)")
        #expect(deckd.waitForLog("org.deck.prompts abandoned focus"), "\(deckd.log)")
        let after = try deckd.deckctl(["session"]).output
        #expect(after.contains("org.deck.tone  music  gain  playing  gain 0.0 dB") && !after.contains("org.deck.prompts"), "\(after)")
        try deckd.waitForFrames(40)
        #expect(deckd.stop() == 0)

        let measured = try windows(try AudioAnalysis.decodeWithFFmpeg(output).left)
        let full = 0.25  // Tone's −12 dBFS sine
        let ducked = measured.indices.filter { abs(measured[$0].tone - full * 0.2) < 0.02 && measured[$0].rest > 0.01 }
        #expect(ducked.count >= 10, "a second and more of speech over the tone ducked by 14 dB: \(measured)")
        guard let first = ducked.first, let last = ducked.last else { return }
        #expect(measured[..<first].contains { abs($0.tone - full) < 0.02 && $0.rest < 0.005 },
                "the tone at full level, alone, before the prompt")
        #expect(measured[(last + 1)...].contains { abs($0.tone - full) < 0.02 && $0.rest < 0.005 },
                "the tone back at full level, alone, after the prompt")
    }

    /// A voice command (a transient loss) ends the prompt: its turn may be behind the car by the
    /// time the command ends, so it is not resumed.
    @Test func aPromptInterruptedForAWhileIsDroppedNotResumed() throws {
        let deckd = try DeckdProcess(["--plugins", Paths.corePlugins, "--state", "none"])
        #expect(deckd.waitForLog("deckd: ready"), "\(deckd.log)")
        _ = try deckd.deckctl(["launch", "org.deck.prompts", "Turn left in two hundred metres, then keep right at the fork."])
        let assistant = LineClient(path: deckd.socket)
        let granted = assistant.call("session.request", #"{"context": "voiceCommand", "type": "gainTransient", "name": "assistant"}"#)
        #expect(granted?.contains(#""result":"granted""#) == true, "\(granted ?? "no answer")")
        #expect(deckd.waitForLog("org.deck.prompts abandoned focus"), "the prompt lets go at the loss: \(deckd.log)")
        _ = assistant.call("session.abandon", #"{"name": "assistant"}"#, id: 2)
        usleep(300_000)
        let after = try deckd.deckctl(["session"]).output
        #expect(!after.contains("org.deck.prompts") && !deckd.log.contains("org.deck.prompts: gain"), "not said later: \(after)")
        #expect(deckd.stop() == 0)
    }

    @Test func aPromptWithoutASentenceIsRefusedNamingWhatIsMissing() throws {
        let deckd = try DeckdProcess.firstParty(["--state", "none"])
        let refused = try deckd.deckctl(["call", "apps.launch", #"{"id":"org.deck.prompts","item":"   "}"#])
        #expect(refused.status != 0 && refused.output.contains("give the sentence to say as the item"), "\(refused.output)")
        // Punctuation alone is said as a few milliseconds of silence, which would only dip the music.
        for text in ["...", "\u{2014}", "\u{200B}", "?!"] {
            let silent = try deckd.deckctl(["launch", "org.deck.prompts", text])
            #expect(silent.status == 1 && silent.output.contains("there is no word to say in the text"), "\(text): \(silent.output)")
        }
        #expect(!deckd.log.contains("org.deck.prompts asked for navigation"), "no focus asked for: \(deckd.log)")
        let said = try deckd.deckctl(["launch", "org.deck.prompts", "Turn left."])
        #expect(said.status == 0, "\(said.output)")
        #expect(try deckd.deckctl(["status"]).status == 0)
        #expect(deckd.stop() == 0)
    }

    /// 20,000 characters took espeak-ng over a second on the host's loop thread: the runtime
    /// waited that second, then ended the host as unanswering. Past 4096 characters the runtime
    /// refuses the item before any app sees it; over 500, Prompts refuses it at once (the answer
    /// quoting the text's start only), and the app stays up to say the next.
    @Test func aTextTooLongToBeAPromptIsRefusedAtOnceAndTheAppStaysUp() throws {
        let deckd = try DeckdProcess.firstParty(["--state", "none"])
        let sentence = "Turn left in two hundred metres, then keep right. "  // 50 characters
        let huge = try deckd.deckctl(["launch", "org.deck.prompts", String(repeating: sentence, count: 400)])
        #expect(huge.status != 0 && huge.output.contains(#""item" has 20000 characters; it takes at most 4096"#), "\(huge.output.suffix(300))")
        let long = String(repeating: sentence, count: 60)
        let refused = try deckd.deckctl(["launch", "org.deck.prompts", long])
        #expect(refused.status != 0 && refused.output.contains("a prompt is at most 500 characters (2000 bytes); say a longer text in parts"),
                "\(refused.output.suffix(300))")
        #expect(refused.output.contains("refused to play Turn left") && refused.output.contains("… (3000 bytes)") && refused.output.utf8.count < 1_000,
                "the answer quotes the item's start, not its 3,000 bytes: \(refused.output.prefix(300))")
        let said = try deckd.deckctl(["launch", "org.deck.prompts", String(long.prefix(500))])
        #expect(said.status == 0 && said.output.contains("org.deck.prompts: active"), "\(said.output)")
        #expect(!deckd.log.contains("crashed"), "\(deckd.log)")
        #expect(deckd.stop() == 0)
    }

    /// espeak-ng 1.51 (Debian 12's) overflows its stack on some texts and aborts: a dotted
    /// abbreviation 90 letters long, `s'` stacked 220 times, punctuation under combining accents.
    /// Each is spoken in a child process, so such a text is refused naming the crash (or said, by
    /// an espeak-ng that no longer crashes on it), and the app, its host and deckd stay up.
    @Test func aTextThatCrashesTheSynthesizerIsRefusedAndTheAppStaysUp() throws {
        let deckd = try DeckdProcess.firstParty(["--state", "none"])
        let host = try deckd.apps().first { $0["id"]?.stringValue == "org.deck.prompts" }?["pid"]?.intValue  // nil inline
        var refusals = 0
        for text in [String(repeating: ".a", count: 90), String(repeating: "s'", count: 220), String(repeating: ".\u{301}", count: 100)] {
            let answer = try deckd.deckctl(["launch", "org.deck.prompts", text])
            if answer.status != 0 {
                #expect(answer.output.contains("start failed: espeak-ng crashed on the text (Aborted); reword it"), "\(answer.output.suffix(300))")
                refusals += 1
            }
        }
        print("espeak-ng crashed on \(refusals) of 3 texts")
        let said = try deckd.deckctl(["launch", "org.deck.prompts", "Turn left"])
        #expect(said.status == 0 && said.output.contains("org.deck.prompts: active"), "\(said.output)")
        #expect(try deckd.apps().first { $0["id"]?.stringValue == "org.deck.prompts" }?["pid"]?.intValue == host, "the same host process")
        #expect(!deckd.log.contains("killed by signal") && !deckd.log.contains("Program crashed"), "\(deckd.log)")
        #expect(deckd.stop() == 0)
    }
}
