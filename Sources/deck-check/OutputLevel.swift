import COgg
import COpus
import Glibc

/// The loudest sample in the runtime's recorded output after a given frame: the Ogg Opus file the
/// file sink wrote, read with libogg and decoded with libopus.
enum OutputLevel {
    /// The peak (0…1) of frames `from` onwards (48 kHz frames counted from the file's start), or
    /// nil when the file cannot be read.
    static func peak(of path: String, from frame: Int) -> Float? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var sync = ogg_sync_state(), stream = ogg_stream_state(), page = ogg_page(), packet = ogg_packet()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        var streamReady = false
        defer { if streamReady { ogg_stream_clear(&stream) } }
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, 2, &error), error == OPUS_OK else { return nil }
        defer { opus_decoder_destroy(decoder) }
        var pcm = [Float](repeating: 0, count: 5_760 * 2)
        var packets = 0, decoded = 0, peak: Float = 0
        while true {
            while ogg_sync_pageout(&sync, &page) == 1 {
                if !streamReady {
                    ogg_stream_init(&stream, ogg_page_serialno(&page))
                    streamReady = true
                }
                ogg_stream_pagein(&stream, &page)
                while ogg_stream_packetout(&stream, &packet) == 1 {
                    packets += 1
                    guard packets > 2, packet.bytes > 0, packet.bytes < 1_276 * 3 else { continue }  // OpusHead, OpusTags
                    let frames = pcm.withUnsafeMutableBufferPointer {
                        opus_decode_float(decoder, packet.packet, Int32(packet.bytes), $0.baseAddress!, 5_760, 0)
                    }
                    guard frames > 0 else { continue }
                    for index in 0..<Int(frames) where decoded + index >= frame {
                        peak = max(peak, abs(pcm[index * 2]), abs(pcm[index * 2 + 1]))
                    }
                    decoded += Int(frames)
                }
            }
            guard let buffer = ogg_sync_buffer(&sync, 65_536) else { return nil }
            let count = fread(buffer, 1, 65_536, file)
            if count == 0 { break }
            ogg_sync_wrote(&sync, count)
        }
        return peak
    }
}
