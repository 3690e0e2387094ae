import Testing
import DeckBase
import DeckSDK
import DeckUI

/// The JSON a Swift plugin's template becomes: every member where the host looks for it, every
/// text as it was given, and read by the host as the same template.
@Suite struct DeckTemplateTests {
    let limits = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio, .maps])

    @Test func aListWritesEveryMemberWhereTheHostReadsIt() throws {
        var template = DeckTemplate.list("Radio", key: "root", sections: [
            DeckSection(header: "Now playing", items: [DeckItem("Jazz FM", detail: "live", image: 7, playing: true)]),
            DeckSection(items: [DeckItem(key: "s1", "Station 1", accessory: .disclosure), DeckItem(key: "s2", "Station 2")]),
        ])
        template.buttons = [DeckItem(key: "more", "More")]
        let expected: JSONValue = [
            "type": "list", "title": "Radio", "key": "root",
            "sections": [
                ["header": "Now playing", "items": [["text": "Jazz FM", "detail": "live", "image": 7, "playing": true]]],
                ["items": [["key": "s1", "text": "Station 1", "accessory": "disclosure"], ["key": "s2", "text": "Station 2"]]],
            ],
            "actions": [["key": "more", "text": "More"]],
        ]
        #expect(try JSONValue.parse(template.json) == expected)
    }

    @Test func eachKindKeepsItsRowsAndButtonsUnderItsOwnName() throws {
        let rows = [DeckItem(key: "a", "A")]
        let cases: [(DeckTemplate.Kind, rows: String, buttons: String)] = [
            (.information, "items", "actions"), (.pointOfInterest, "points", "actions"), (.search, "results", "actions"),
            (.voiceControl, "states", "actions"), (.map, "trips", "buttons"), (.grid, "", "buttons"), (.nowPlaying, "", "buttons"),
        ]
        for (kind, rowsKey, buttonsKey) in cases {
            var template = DeckTemplate(kind, title: "T")
            template.sections = [DeckSection(items: rows)]
            template.buttons = [DeckItem(key: "b", "B")]
            let json = try #require(try JSONValue.parse(template.json).objectValue)
            #expect(json[buttonsKey] == [["key": "b", "text": "B"]], "\(kind)")
            if !rowsKey.isEmpty { #expect(json[rowsKey] == [["key": "a", "text": "A"]], "\(kind)") }
            #expect(json.keys.count == (rowsKey.isEmpty ? 3 : 4), "\(kind): \(json.keys)")
        }
        let tabs = DeckTemplate.tabBar([.list("One", key: "1", items: rows), .grid("Two", buttons: [])])
        #expect(try JSONValue.parse(tabs.json) == [
            "type": "tabBar",
            "tabs": [["type": "list", "title": "One", "key": "1", "sections": [["items": [["key": "a", "text": "A"]]]]],
                     ["type": "grid", "title": "Two"]],
        ])
    }

    @Test func textsNeedingEscapesComeBackAsTheyWere() throws {
        let texts = ["say \"hi\"", #"C:\music"#, "two\nlines\tand\r", "bell \u{07} and \u{1F}", "Café ♫ 東京 🎵", ""]
        for text in texts {
            let alert = DeckTemplate.alert(text, message: text, actions: [DeckItem(key: text.isEmpty ? "k" : text, text, detail: text)])
            let json = try JSONValue.parse(alert.json)
            #expect(json["title"]?.stringValue == text)
            #expect(json["message"]?.stringValue == text)
            let action = try #require(json["actions"]?.arrayValue?.first)
            #expect(action["text"]?.stringValue == text && action["detail"]?.stringValue == text)
        }
        #expect(DeckTemplate.alert("\u{01}", actions: []).json == #"{"type":"alert","title":"\u0001"}"#)
    }

    @Test func theHostReadsTheSameTemplate() throws {
        let app = AppInterface(appID: "org.example.sdk", entitlements: [.audio])
        let template = DeckTemplate.list("Tone", sections: [
            DeckSection(header: "Signals", items: (0..<40).map { DeckItem(key: "k\($0)", "Signal \($0) \"q\"", detail: "d\($0)", playing: $0 == 3) }),
        ])
        let (id, dropped) = try app.setRoot(template.json, limits: limits)
        #expect(dropped == 0)
        let read = try #require(app.stack.templates.first)
        #expect(read.id == id && read.title == "Tone" && read.sections.count == 1 && read.sections[0].header == "Signals")
        #expect(read.sections[0].items.map(\.key) == (0..<40).map { "k\($0)" })
        #expect(read.sections[0].items.map(\.text) == (0..<40).map { "Signal \($0) \"q\"" })
        #expect(read.sections[0].items.filter { $0.fields["playing"] == true }.map(\.key) == ["k3"])
    }
}
