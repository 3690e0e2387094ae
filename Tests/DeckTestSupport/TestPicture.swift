import Foundation

/// Pictures for the image limits: real ones drawn by ffmpeg, and bare headers that claim a size.
public enum TestPicture {
    /// A PNG's signature and IHDR chunk claiming `width` × `height`, then `padding` zero bytes: all
    /// a header reader sees, and no picture to decode.
    public static func pngHeader(width: UInt32, height: UInt32, padding: Int = 0) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + bigEndian(13) + Array("IHDR".utf8) + bigEndian(width)
            + bigEndian(height) + [8, 2, 0, 0, 0] + [0, 0, 0, 0] + [UInt8](repeating: 0, count: padding)
    }

    /// A grey picture ffmpeg draws, `width` × `height`, as `format` (png, jpg), in `folder`.
    public static func drawn(_ width: Int, _ height: Int, format: String, in folder: String,
                             arguments: [String] = []) throws -> [UInt8] {
        let path = folder + "/grey-\(width)x\(height).\(format)"
        _ = try runProgram("/usr/bin/ffmpeg", ["-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "color=c=gray:s=\(width)x\(height)",
                                               "-frames:v", "1"] + arguments + [path])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
