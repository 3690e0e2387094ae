import COgg
import DeckBase

/// Packs Opus packets into an Ogg Opus stream (RFC 7845) with libogg: OpusHead alone on the first
/// page, OpusTags on the next, then audio pages flushed at least every 100 ms. Granule positions
/// count from the first packet this muxer sees, so a stream joined late is valid on its own.
/// Loop-thread-confined.
final class OggOpusMuxer {
    /// A flushed page: libogg's header and body, concatenated.
    typealias Page = [UInt8]

    static let vendor = "Deck \(DeckVersion.string)"
    static let flushMilliseconds = 100
    static let flushSamples = flushMilliseconds * 48

    let serial: Int32
    let headerPages: [Page]
    private let state: UnsafeMutablePointer<ogg_stream_state>
    private var packetNumber: Int64 = 2
    private var origin: Int64?
    private var samplesSinceFlush = 0

    init(preSkip: Int, serial: Int32 = Int32.random(in: 1...Int32.max)) {
        self.serial = serial
        state = .allocate(capacity: 1)
        ogg_stream_init(state, serial)
        var pages: [Page] = []
        OggOpusMuxer.submit(state, OggOpusMuxer.opusHead(preSkip: preSkip), number: 0, granule: 0, bos: true)
        pages += OggOpusMuxer.flush(state)
        OggOpusMuxer.submit(state, OggOpusMuxer.opusTags(), number: 1, granule: 0)
        pages += OggOpusMuxer.flush(state)
        headerPages = pages
    }

    deinit {
        ogg_stream_clear(state)
        state.deallocate()
    }

    /// Adds one packet and returns the pages it completed (often none until 100 ms are buffered).
    func pages(for packet: EncodedPacket) -> [Page] {
        var pages: [Page] = []
        add(packet) { pages.append(OggOpusMuxer.bytes(of: $0)) }
        return pages
    }

    /// Adds one packet and appends the pages it completed to `buffer`, without a page's own array.
    func append(_ packet: EncodedPacket, to buffer: inout [UInt8]) {
        add(packet) { OggOpusMuxer.append($0, to: &buffer) }
    }

    /// Adds one packet; `completed` sees each page it completed, valid only during the call.
    private func add(_ packet: EncodedPacket, _ completed: (ogg_page) -> Void) {
        let origin = self.origin ?? packet.sampleIndex
        self.origin = origin
        let granule = packet.granule(from: origin)
        OggOpusMuxer.submit(state, packet.bytes, number: packetNumber, granule: granule, eos: packet.isLast)
        packetNumber += 1
        samplesSinceFlush += packet.samples
        let flushes = samplesSinceFlush >= OggOpusMuxer.flushSamples || packet.isLast
        if flushes { samplesSinceFlush = 0 }
        var page = ogg_page()
        while (flushes ? ogg_stream_flush(state, &page) : ogg_stream_pageout(state, &page)) != 0 { completed(page) }
    }

    /// The identification header: magic, version 1, 2 channels, pre-skip, 48 kHz, gain 0, mapping 0.
    static func opusHead(preSkip: Int) -> [UInt8] {
        Array("OpusHead".utf8) + [1, UInt8(AudioFormat.channels)] + littleEndian(UInt16(preSkip))
            + littleEndian(UInt32(AudioFormat.sampleRate)) + littleEndian(UInt16(0)) + [0]
    }

    /// The comment header: vendor "Deck VERSION" and no user comments.
    static func opusTags() -> [UInt8] {
        let vendor = Array(self.vendor.utf8)
        return Array("OpusTags".utf8) + littleEndian(UInt32(vendor.count)) + vendor + littleEndian(UInt32(0))
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func submit(_ state: UnsafeMutablePointer<ogg_stream_state>, _ data: [UInt8], number: Int64,
                               granule: Int64, bos: Bool = false, eos: Bool = false) {
        data.withUnsafeBufferPointer { buffer in
            // libogg copies the packet's bytes and never writes through the pointer.
            var packet = ogg_packet(packet: UnsafeMutablePointer(mutating: buffer.baseAddress), bytes: buffer.count,
                                    b_o_s: bos ? 1 : 0, e_o_s: eos ? 1 : 0, granulepos: granule, packetno: number)
            ogg_stream_packetin(state, &packet)
        }
    }

    private static func flush(_ state: UnsafeMutablePointer<ogg_stream_state>) -> [Page] {
        var pages: [Page] = []
        var page = ogg_page()
        while ogg_stream_flush(state, &page) != 0 { pages.append(bytes(of: page)) }
        return pages
    }

    private static func bytes(of page: ogg_page) -> Page {
        var bytes = Page()
        bytes.reserveCapacity(page.header_len + page.body_len)
        append(page, to: &bytes)
        return bytes
    }

    /// libogg's header and body of `page`, appended.
    private static func append(_ page: ogg_page, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
        buffer.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
    }
}
