import Foundation

/// WAV files for the decoders to read.
public enum WAVFile {
    /// Writes `samples` (interleaved stereo at 48 kHz) as 32-bit floats (format 3), or marked with another `format`.
    public static func writeFloat(_ samples: [Float], format: UInt16 = 3, to path: String) throws {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        let data = samples.flatMap { le($0.bitPattern) }
        let header = Array("RIFF".utf8) + le(UInt32(36 + data.count)) + Array("WAVEfmt ".utf8) + le(UInt32(16)) + le(format) + le(UInt16(2))
            + le(UInt32(48_000)) + le(UInt32(48_000 * 8)) + le(UInt16(8)) + le(UInt16(32)) + Array("data".utf8) + le(UInt32(data.count))
        try Data(header + data).write(to: URL(fileURLWithPath: path))
    }
}
