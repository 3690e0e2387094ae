import Testing
@testable import DeckBase
@testable import DeckUI

/// Templates as plugins describe them: what is read, what is refused with which rule, and what
/// the limits let show.
@Suite struct TemplateTests {
    let parked = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio])

    func app(_ entitlements: Set<Entitlement> = [.audio]) -> AppInterface { AppInterface(appID: "org.example.app", entitlements: entitlements) }

    func list(_ count: Int, sections: Int = 1) -> String {
        let perSection = count / sections
        let body = (0..<sections).map { section in
            "{\"header\": \"S\(section)\", \"items\": [" + (0..<perSection).map { "{\"key\": \"k\(section)-\($0)\", \"text\": \"Row \($0)\"}" }
                .joined(separator: ",") + "]}"
        }.joined(separator: ",")
        return "{\"type\": \"list\", \"title\": \"L\", \"sections\": [\(body)]}"
    }

    @Test func aListIsReadWithIdsAndShownWhole() throws {
        let app = app()
        let (id, dropped) = try app.setRoot(#"{"type": "list", "title": "Radio", "items": [{"key": "fm4", "text": "FM4", "detail": "Alternative", "accessory": "disclosure", "playing": true}, {"text": "Info", "kind": "row"}]}"#, limits: parked)
        #expect(dropped == 0)
        let root = try #require(app.stack.root)
        #expect(root.id == id)
        let json = root.json
        #expect(json["type"] == "list")
        #expect(json["title"] == "Radio")
        let items = json["sections"]?.arrayValue?.first?["items"]?.arrayValue ?? []
        #expect(items.count == 2)
        #expect(items[0]["key"] == "fm4" && items[0]["detail"] == "Alternative" && items[0]["playing"] == true && items[0]["accessory"] == "disclosure")
        #expect(items[1]["selectable"] == false)  // no key, no handler
        #expect(items[0].objectValue?.keys == ["accessory", "detail", "id", "key", "playing", "text"] && items[0]["text"] == "FM4")
        #expect(items[1].objectValue?.keys == ["id", "kind", "selectable", "text"] && items[1]["text"] == "Info" && items[1]["kind"] == "row")
        #expect(Set(items.compactMap { $0["id"]?.intValue }).count == 2)
    }

    @Test(arguments: [
        (#"{"type": "list", "items": []"#, "the template is not valid JSON"),
        (#"{"title": "x"}"#, "template needs a \"type\""),
        (#"{"type": "carousel"}"#, "template: unknown type \"carousel\""),
        (#"{"type": "list", "colour": "red"}"#, "template: unknown key \"colour\" for a list"),
        (#"{"type": "list", "items": [{"key": "a"}]}"#, "template.items[0] needs a \"text\""),
        (#"{"type": "list", "items": [{"key": "a", "text": 3}]}"#, "template.items[0].text must be a string, not a number"),
        (#"{"type": "list", "items": [{"key": "a", "text": "A"}, {"key": "a", "text": "B"}]}"#, "the key \"a\" is used twice"),
        (#"{"type": "list", "items": [{"key": "a", "text": "A", "image": 9}]}"#, "template.items[0].image: 9 is not an image id from add_image"),
        (#"{"type": "list", "items": [{"key": "a", "text": "A", "accessory": "star"}]}"#, "accessory must be one of none, disclosure, cloud"),
    ])
    func malformedTemplatesAreRefusedNamingWhatIsWrong(json: String, fragment: String) {
        #expect(throws: UIError.self) { try app().setRoot(json, limits: parked) }
        do { _ = try app().setRoot(json, limits: parked) } catch {
            guard case .invalid(let message) = error else { Issue.record("\(error) is not .invalid"); return }
            #expect(message.contains(fragment), "\(message)")
        }
    }

    /// The error is the plugin's `last_error`, shown to every client in `apps.list`: what the
    /// plugin wrote is quoted by its start, not whole.
    @Test func aTemplatesLongValuesAreQuotedByTheirStart() {
        let long = String(repeating: "x", count: 100_000)
        for json in [#"{"type": "\#(long)"}"#, #"{"type": "list", "\#(long)": 1}"#,
                     #"{"type": "list", "items": [{"key": "a", "text": "A", "\#(long)": 1}]}"#,
                     #"{"type": "list", "sections": [{"items": [], "\#(long)": 1}]}"#,
                     #"{"type": "list", "items": [{"key": "a", "text": "A", "image": "\#(long)"}]}"#] {
            do { _ = try app().setRoot(json, limits: parked); Issue.record("accepted") } catch {
                guard case .invalid(let message) = error else { Issue.record("\(error) is not .invalid"); continue }
                #expect(message.utf8.count < 400 && message.contains("xxx… (1000"), "\(message.prefix(400))")
            }
        }
    }

    @Test(arguments: [
        ("information", [Entitlement.audio], "an information template needs one of the communication, maps, charging, parking, quick-ordering, fueling, driving-task entitlements (the plugin has: audio)"),
        ("map", [.communication], "a map template needs the maps entitlement (the plugin has: communication)"),
        ("nowPlaying", [.maps], "a nowPlaying template needs one of the audio, communication entitlements (the plugin has: maps)"),
        ("pointOfInterest", [.audio], "a pointOfInterest template needs one of the charging, parking, quick-ordering, fueling, driving-task entitlements (the plugin has: audio)"),
    ])
    func aTemplateOutsideTheCategoriesIsRefusedNamingTheEntitlement(type: String, entitlements: [Entitlement], message: String) {
        let app = app(Set(entitlements))
        let limits = DisplayLimits(profile: DisplayProfile(), entitlements: Set(entitlements))
        #expect(throws: UIError.notEntitled(message)) { try app.setRoot("{\"type\": \"\(type)\"}", limits: limits) }
        #expect(app.stack.root == nil)
    }

    @Test func messageRowsNeedTheCommunicationEntitlement() throws {
        let json = #"{"type": "list", "items": [{"text": "Hi", "kind": "message"}]}"#
        #expect(throws: UIError.notEntitled("template.items[0]: message rows need the communication entitlement (the plugin has: audio)")) {
            try app().setRoot(json, limits: parked)
        }
        let messenger = app([.communication])
        _ = try messenger.setRoot(json, limits: DisplayLimits(profile: DisplayProfile(), entitlements: [.communication]))
        #expect(messenger.stack.root?.json["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first?["selectable"] == false)
    }

    @Test(arguments: [
        ([Entitlement.audio], #"{"type": "tabBar", "tabs": [§,§,§,§,§]}"#, "a tab bar takes at most 4 tabs (tabs, for this app's categories); this one has 5"),
        ([.communication], #"{"type": "tabBar", "tabs": [§,§,§,§,§,§]}"#, "a tab bar takes at most 5 tabs (tabs, for this app's categories); this one has 6"),
        ([.audio], #"{"type": "grid", "buttons": [¤,¤,¤,¤,¤,¤,¤,¤,¤]}"#, "a grid takes at most 8 buttons (gridButtons); this one has 9"),
        ([.audio], #"{"type": "alert", "actions": [¤,¤,¤]}"#, "an alert takes at most 2 actions (alertActions); this one has 3"),
        ([.maps], #"{"type": "information", "actions": [¤,¤,¤,¤]}"#, "an information takes at most 3 actions (informationActions); this one has 4"),
        ([.audio], #"{"type": "nowPlaying", "buttons": [¤,¤,¤,¤,¤,¤]}"#, "a nowPlaying takes at most 5 buttons (nowPlayingButtons); this one has 6"),
        ([.audio], #"{"type": "tabBar", "tabs": [{"type": "tabBar"}]}"#, "template.tabs[0]: a tabBar cannot be a tab"),
    ])
    func structuralViolationsAreRefusedWithTheLimitAndItsValue(entitlements: [Entitlement], shape: String, message: String) {
        var counter = 0
        var json = ""
        for character in shape {
            switch character {
            case "§": json += "{\"type\": \"list\", \"items\": []}"
            case "¤": counter += 1; json += "{\"key\": \"b\(counter)\", \"text\": \"B\"}"
            default: json.append(character)
            }
        }
        let app = app(Set(entitlements))
        let limits = DisplayLimits(profile: DisplayProfile(), entitlements: Set(entitlements))
        let call = { () throws(UIError) in
            if json.contains("alert") { _ = try app.present(json, limits: limits) } else { _ = try app.setRoot(json, limits: limits) }
        }
        #expect(throws: UIError.limit(message)) { try call() }
        #expect(app.stack.root == nil && app.stack.modal == nil)
    }

    @Test func listOverflowIsHiddenAndCountedAndReturnsWhenLimitsGrow() throws {
        let app = app()
        let (_, dropped) = try app.setRoot(list(150, sections: 15), limits: parked)
        // 10 sections of 10 rows fit when parked: 5 sections dropped.
        #expect(dropped == 50)
        var driving = DisplayProfile()
        driving.limitedUserInterfaces = [.lists]
        let drivingLimits = DisplayLimits(profile: driving, entitlements: [.audio])
        let (shown, hidden) = try #require(app.stack.root).visible(under: drivingLimits)
        #expect(shown.sections.count == 2)  // 12 rows: one section of 10 and two of the next
        #expect(shown.sections.flatMap(\.items).count == 12)
        #expect(hidden == 138)
        #expect(try #require(app.stack.root).visible(under: parked).template.sections.flatMap(\.items).count == 100)
    }

    @Test func longStringsAreCutTo120CharactersAndCounted() throws {
        let long = String(repeating: "x", count: 200)
        let (_, dropped) = try app().setRoot("{\"type\": \"list\", \"title\": \"\(long)\", \"items\": [{\"text\": \"\(long)\"}]}", limits: parked)
        #expect(dropped == 2)
        let app = app()
        _ = try app.setRoot("{\"type\": \"list\", \"title\": \"\(long)\"}", limits: parked)
        #expect(app.stack.root?.title?.count == 120)
        #expect(app.stack.root?.title?.hasSuffix("…") == true)
    }

    @Test func anItemKeepsItsIdAcrossARefresh() throws {
        let app = app()
        let (id, _) = try app.setRoot(#"{"type": "list", "items": [{"key": "a", "text": "A", "detail": "1"}]}"#, limits: parked)
        let before = try #require(app.stack.root?.sections.first?.items.first?.id)
        _ = try app.update(id, #"{"type": "list", "items": [{"key": "a", "text": "A", "detail": "2"}]}"#, limits: parked)
        #expect(app.stack.root?.sections.first?.items.first?.id == before)
        #expect(app.stack.root?.sections.first?.items.first?.fields["detail"] == "2")
        #expect(throws: UIError.invalid("update keeps a template's type: \(id) is a list, not a grid")) {
            try app.update(id, #"{"type": "grid"}"#, limits: parked)
        }
    }

    @Test func aTabAndAnItemNeverShareAnId() throws {
        let app = app()
        func bar(item key: String, detail: String) -> String {
            #"{"type": "tabBar", "tabs": [{"type": "list", "key": "x", "title": "X", "items": [{"key": ""# + key
                + #"", "text": "A", "detail": ""# + detail + #""}]}]}"#
        }
        let (id, _) = try app.setRoot(bar(item: "tab:x", detail: "1"), limits: parked)
        let tab = try #require(app.stack.root?.tabs.first)
        let item = try #require(tab.sections.first?.items.first?.id)
        #expect(tab.id != item)
        _ = try app.update(id, bar(item: "tab:x", detail: "2"), limits: parked)
        #expect(app.stack.root?.tabs.first?.id == tab.id)
        #expect(app.stack.root?.tabs.first?.sections.first?.items.first?.id == item)
        #expect(throws: UIError.invalid(#"template.tabs[0].key: the key "x" is used twice in the template"#)) {
            try app.update(id, bar(item: "x", detail: "3"), limits: parked)
        }
    }

    @Test func itemIdsAreKeptOnlyForWhatTheStackShows() throws {
        let app = app()
        func list(_ keys: Range<Int>) -> String {
            "{\"type\": \"list\", \"items\": [" + keys.map { "{\"key\": \"k\($0)\", \"text\": \"T\"}" }.joined(separator: ",") + "]}"
        }
        let (root, _) = try app.setRoot(list(0..<10), limits: parked)
        // A long drive: rows scroll by under refreshes, screens are pushed and popped.
        for round in 0..<200 {
            _ = try app.update(root, list(round..<round + 10), limits: parked)
            _ = try app.push(list(0..<20), limits: parked)
            try app.pop()
            app.startTask()
        }
        #expect(app.keptItemIDs == 10)
        let shown = try #require(app.stack.root?.sections.first?.items.map(\.id))
        _ = try app.update(root, list(199..<209), limits: parked)
        #expect(app.stack.root?.sections.first?.items.map(\.id) == shown)

        // A refresh the stack refuses (a new main content with the quota spent) changes no id.
        for _ in 1..<5 { _ = try app.push(list(0..<1), limits: parked) }
        #expect(throws: UIError.self) { try app.update(root, list(300..<310), limits: parked) }
        _ = try app.update(root, list(199..<209), limits: parked)
        #expect(app.stack.root?.sections.first?.items.map(\.id) == shown)
        app.clear()
        #expect(app.keptItemIDs == 0)
    }

    @Test func imagesMustBePNGOrJPEGWithinTheLimit() throws {
        let app = AppInterface(appID: "a", entitlements: [.audio], maxImageBytes: 1_024)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]
        let id = try app.addImage(png)
        #expect(app.image(id)?.mimeType == "image/png")
        #expect(throws: UIError.invalid("an image must be PNG or JPEG bytes (its first bytes are neither signature)")) { try app.addImage([1, 2, 3]) }
        #expect(throws: UIError.limit("an image of 2048 bytes is over the limit of 1024 (ui.maxImageBytes)")) {
            try app.addImage(png + [UInt8](repeating: 0, count: 2_038))
        }
        _ = try app.setRoot("{\"type\": \"list\", \"items\": [{\"key\": \"a\", \"text\": \"A\", \"image\": \(id)}]}", limits: parked)
    }
}
