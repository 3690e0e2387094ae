import COgg
import COpus
import Glibc

/// The runtime's recorded output, judged by level: the Ogg Opus file the file sink wrote, read
/// with libogg and decoded with libopus.
enum OutputLevel {
    /// The peak (0…1) of frames `from` onwards (48 kHz frames counted from the file's start), or
    /// nil when the file cannot be read.
    static func peak(of path: String, from frame: Int) -> Float? {
        var peak: Float = 0
        let read = decode(path) { samples, first in
            for index in stride(from: 0, to: samples.count, by: 2) where first + index / 2 >= frame {
                peak = max(peak, abs(samples[index]), abs(samples[index + 1]))
            }
        }
        return read ? peak : nil
    }

    /// Of the 20 ms blocks in `count` frames from `frame`, how many after the first that sounds
    /// are silent (peaking under −60 dBFS), and how many there are after it; nil when the file
    /// cannot be read or nothing in the span sounds.
    static func silentBlocks(of path: String, from frame: Int, count: Int) -> (silent: Int, blocks: Int)? {
        let block = 960, blocks = max(0, count / block)
        var peaks = [Float](repeating: 0, count: blocks)
        let read = decode(path) { samples, first in
            for index in stride(from: 0, to: samples.count, by: 2) {
                let slot = (first + index / 2 - frame) / block
                guard first + index / 2 >= frame, slot < blocks else { continue }
                peaks[slot] = max(peaks[slot], abs(samples[index]), abs(samples[index + 1]))
            }
        }
        guard read, let sounding = peaks.firstIndex(where: { $0 >= silence }) else { return nil }
        let after = peaks[sounding...]
        return (after.filter { $0 < silence }.count, after.count)
    }

    /// Under −60 dBFS.
    static let silence: Float = 0.001

    /// Hands `body` each decoded packet's interleaved stereo samples and the frame they start at;
    /// false when the file cannot be read.
    private static func decode(_ path: String, _ body: (ArraySlice<Float>, Int) -> Void) -> Bool {
        guard let file = fopen(path, "rb") else { return false }
        defer { fclose(file) }
        var sync = ogg_sync_state(), stream = ogg_stream_state(), page = ogg_page(), packet = ogg_packet()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        var streamReady = false
        defer { if streamReady { ogg_stream_clear(&stream) } }
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, 2, &error), error == OPUS_OK else { return false }
        defer { opus_decoder_destroy(decoder) }
        var pcm = [Float](repeating: 0, count: 5_760 * 2)
        var packets = 0, decoded = 0
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
                    body(pcm[..<(Int(frames) * 2)], decoded)
                    decoded += Int(frames)
                }
            }
            guard let buffer = ogg_sync_buffer(&sync, 65_536) else { return false }
            let count = fread(buffer, 1, 65_536, file)
            if count == 0 { break }
            ogg_sync_wrote(&sync, count)
        }
        return true
    }
}
