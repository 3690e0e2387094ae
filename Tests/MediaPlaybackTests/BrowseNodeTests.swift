import MediaPlayback
import Testing

/// A level longer than the display shows is cut into sections that reach every node.
@Suite struct BrowseNodeTests {
    func stations(_ count: Int) -> [BrowseNode] { (1...count).map { BrowseNode(id: "s\($0)", title: "Station \($0)", entry: $0 - 1) } }

    @Test func sectionsHoldTheLimitAndALastOneOfOneIsTheNodeItself() {
        let level = BrowseNode.sectioned(stations(25), limit: 12)
        #expect(level.map(\.title) == ["Station 1 – Station 12", "Station 13 – Station 24", "Station 25"])
        #expect(level.map(\.subtitle) == ["12 items", "12 items", nil])
        #expect(level.map(\.isSection) == [true, true, false])
        let tab = BrowseNode(id: "tab", title: "Stations", children: level)
        #expect(tab.entryIndexes == Array(0..<25), "every station is reached, in order")
        #expect(level[2].queueOwner === tab && level[0].children[0].queueOwner === tab, "sections are not queues")
        #expect(BrowseNode.sectioned(stations(12), limit: 12).map(\.isSection).allSatisfy { !$0 }, "a level that fits is left as it is")
    }
}
