import MediaPlayback
import Testing

/// A long queue is published as the part around the current entry, within the runtime's limit.
@Suite struct QueueWindowTests {
    @Test(arguments: [(5, 2, 0..<5), (1_000, 999, 0..<1_000), (2_000, 0, 0..<1_000), (2_000, 1_200, 700..<1_700),
                      (2_000, 1_999, 1_000..<2_000), (2_000, nil, 0..<1_000)] as [(Int, Int?, Range<Int>)])
    func theCurrentEntryIsHalfWayInWhereItCanBe(count: Int, current: Int?, expected: Range<Int>) {
        let range = QueueWindow.range(count: count, current: current)
        #expect(range == expected)
        #expect(range.count <= QueueWindow.limit && current.map(range.contains) ?? true)
    }
}
