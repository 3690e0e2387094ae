import CFFmpeg

/// Small documents (playlists, station pictures) read through FFmpeg's protocols: a file path, or
/// HTTP(S) with its redirects.
public enum RemoteBytes {
    /// The first `maxBytes` bytes at `url`; a transfer cancelled, timed out or reset midway, or
    /// ending before the length the server gave, is an error, never half a document. (FFmpeg's
    /// HTTP ends a body without a length with EIO, so only EIO and EOF are read as the end.)
    public static func fetch(_ url: String, maxBytes: Int, cancellation: Cancellation = Cancellation()) throws(MediaError) -> [UInt8] {
        _ = MediaSource.allocationLimit
        var context: UnsafeMutablePointer<AVIOContext>?
        var interrupt = cancellation.interrupt
        var options: OpaquePointer?
        av_dict_set(&options, "rw_timeout", "10000000", 0)
        let status = avio_open2(&context, url, AVIO_FLAG_READ, &interrupt, &options)
        av_dict_free(&options)
        guard status >= 0, let opened = context else { throw .open(url, MediaError.text(status)) }
        defer { avio_closep(&context) }
        var bytes = [UInt8](repeating: 0, count: maxBytes)
        var total = 0
        while total < maxBytes {
            let count = bytes.withUnsafeMutableBufferPointer { avio_read(opened, $0.baseAddress! + total, Int32(maxBytes - total)) }
            if cancellation.isCancelled { throw .cancelled }
            if count == 0 || count == deck_averror_eof() || count == deck_averror_eio() { break }
            guard count > 0 else { throw .read("\(url): the transfer failed after \(total) bytes: \(MediaError.text(count))") }
            total += Int(count)
        }
        let length = avio_size(opened)  // the server's Content-Length; negative when it gave none
        if length > 0, total < min(Int(length), maxBytes) { throw .read("\(url): the transfer ended after \(total) of \(length) bytes") }
        return Array(bytes[..<total])
    }
}
