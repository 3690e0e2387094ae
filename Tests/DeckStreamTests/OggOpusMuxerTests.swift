import Testing
@testable import DeckStream

/// Reads back the pages libogg made: RFC 7845's layout rules, checked field by field.
@Suite struct OggOpusMuxerTests {
    struct PageHeader {
        var flags: UInt8
        var granule: Int64
        var serial: UInt32
        var sequence: UInt32
        var body: [UInt8]
    }

    func header(_ page: [UInt8]) -> PageHeader {
        func le<T: FixedWidthInteger>(_ range: Range<Int>) -> T { page[range].reversed().reduce(T(0)) { $0 << 8 | T($1) } }
        let segments = Int(page[26])
        let bodyLength = page[27..<(27 + segments)].reduce(0) { $0 + Int($1) }
        return PageHeader(flags: page[5], granule: le(6..<14), serial: le(14..<18), sequence: le(18..<22),
                          body: Array(page[(27 + segments)..<(27 + segments + bodyLength)]))
    }

    func packet(_ index: Int64, last: Bool = false, final: Int64? = nil) -> EncodedPacket {
        EncodedPacket(bytes: [0xFC, 0xFF, 0xFE], sampleIndex: index * 960, samples: 960, isLast: last,
                      finalGranule: final, preSkip: 312)
    }

    @Test func opusHeadIsAloneOnTheFirstPageAndOpusTagsOnTheSecond() {
        let muxer = OggOpusMuxer(preSkip: 312, serial: 0x1234)
        #expect(muxer.headerPages.count == 2)
        let first = header(muxer.headerPages[0]), second = header(muxer.headerPages[1])
        #expect(first.flags == 0x02)  // beginning of stream
        #expect(first.granule == 0 && second.granule == 0)
        #expect(first.serial == 0x1234 && first.sequence == 0 && second.sequence == 1)
        #expect(first.body == Array("OpusHead".utf8) + [1, 2, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0])
        #expect(second.body == Array("OpusTags".utf8) + [10, 0, 0, 0] + Array("Deck 0.1.0".utf8) + [0, 0, 0, 0])
    }

    @Test func audioPagesAreFlushedEvery100msWithGranulesInSamples() {
        let muxer = OggOpusMuxer(preSkip: 312)
        var pages: [PageHeader] = []
        for index in 0..<12 { pages += muxer.pages(for: packet(Int64(index))).map(header) }
        // 20 ms packets: a page every 5 packets.
        #expect(pages.map(\.granule) == [4_800, 9_600])
        #expect(pages.map(\.sequence) == [2, 3])
    }

    @Test func theLastPacketEndsTheStreamWithTheTrimmedGranule() {
        let muxer = OggOpusMuxer(preSkip: 312)
        _ = muxer.pages(for: packet(0))
        let last = muxer.pages(for: packet(1, last: true, final: 312 + 1_500)).map(header)
        #expect(last.count == 1)
        #expect(last[0].flags & 0x04 == 0x04)  // end of stream
        #expect(last[0].granule == 1_812)
    }

    /// A file sink appends pages to its batch: the same bytes as the pages one by one.
    @Test func appendedPagesAreThePagesInOrder() {
        let paged = OggOpusMuxer(preSkip: 312, serial: 7), appended = OggOpusMuxer(preSkip: 312, serial: 7)
        var pages: [UInt8] = [], buffer: [UInt8] = [0xAA]
        for index in 0..<12 {
            let packet = packet(Int64(index), last: index == 11, final: index == 11 ? 11_000 : nil)
            paged.pages(for: packet).forEach { pages += $0 }
            appended.append(packet, to: &buffer)
        }
        #expect(pages.count > 3 * 27)  // two full pages and the last
        #expect(buffer == [0xAA] + pages)
    }

    @Test func aMuxerJoiningLateCountsGranulesFromItsFirstPacket() {
        let muxer = OggOpusMuxer(preSkip: 312)
        var pages: [PageHeader] = []
        for index in 500..<505 { pages += muxer.pages(for: packet(Int64(index))).map(header) }
        #expect(pages.map(\.granule) == [4_800])
    }
}
