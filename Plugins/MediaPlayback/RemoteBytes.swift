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
            let asked = Int32(maxBytes - total)
            let count = bytes.withUnsafeMutableBufferPointer { avio_read(opened, $0.baseAddress! + total, asked) }
            if cancellation.isCancelled { throw .cancelled }
            total += Int(max(0, count))
            // avio_read fills what it is asked for unless the transfer ended: then its status is
            // the context's error (asking again would wait out the timeout a second time).
            let status = count < 0 ? count : count < asked ? opened.pointee.error : 0
            guard status == 0 || status == deck_averror_eof() || status == deck_averror_eio() else {
                throw .read("\(url): the transfer failed after \(total) bytes: \(MediaError.text(status))")
            }
            if count < asked { break }
        }
        let length = avio_size(opened)  // the server's Content-Length; negative when it gave none
        if length > 0, total < min(Int(length), maxBytes) { throw .read("\(url): the transfer ended after \(total) of \(length) bytes") }
        return Array(bytes[..<total])
    }
}
