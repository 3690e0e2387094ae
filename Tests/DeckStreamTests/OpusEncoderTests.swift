import Testing
@testable import DeckStream

@Suite struct OpusEncoderTests {
    /// Frames of white noise at full scale, the hardest thing to compress (a fixed LCG, so runs agree).
    func noise(frames: Int) -> [Float] {
        var state: UInt32 = 0x2545_F491
        return (0..<frames * AudioFormat.channels).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(Int32(bitPattern: state)) / Float(Int32.max)
        }
    }

    func packetLengths(frameSamples: Int, frames: Int = 50) throws -> [Int] {
        var settings = EncoderSettings()
        settings.bitrate = 510_000  // the most Opus allows, so packets reach their bound
        let encoder = try OpusEncoder(settings: settings, frameSamples: frameSamples)
        var packet = [UInt8](repeating: 0, count: encoder.maxPacketBytes)
        let pcm = noise(frames: frameSamples * frames)
        return (0..<frames).map { frame in
            pcm.withUnsafeBufferPointer { encoder.encode($0.baseAddress! + frame * frameSamples * AudioFormat.channels, into: &packet) }
        }
    }

    /// A frame of 20 ms or less is one Opus frame: never more than 1275 bytes and its TOC byte,
    /// which is all a packet ring slot holds for it.
    @Test(arguments: [120, 240, 480, 960])
    func aFrameOf20msOrLessFitsInOneOpusFrame(frameSamples: Int) throws {
        let lengths = try packetLengths(frameSamples: frameSamples)
        #expect(lengths.allSatisfy { (1...1276).contains($0) })
        if frameSamples == 960 { #expect(lengths.max()! >= 1200) }  // the bound is reached, not merely respected
        #expect(try OpusEncoder(settings: EncoderSettings(), frameSamples: frameSamples).maxPacketBytes == 1276)
    }

    /// 40 and 60 ms frames are several Opus frames in one packet, so they get RFC 6716's 4000 bytes.
    @Test(arguments: [1920, 2880])
    func longerFramesGetRoomForSeveralOpusFrames(frameSamples: Int) throws {
        let lengths = try packetLengths(frameSamples: frameSamples, frames: 20)
        #expect(lengths.allSatisfy { (1...4000).contains($0) })
        #expect(lengths.max()! > 1276)
        #expect(try OpusEncoder(settings: EncoderSettings(), frameSamples: frameSamples).maxPacketBytes == 4000)
    }
}
