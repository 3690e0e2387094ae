import Testing
@testable import DeckBase
@testable import DeckUI

/// The stack an app builds: depth, the tab bar's place, one modal, and the task's quota.
@Suite struct TemplateStackTests {
    let limits = DisplayLimits(profile: DisplayProfile(), entitlements: [.audio, .maps])
    let app = AppInterface(appID: "org.example.app", entitlements: [.audio, .maps])

    func list(_ title: String, detail: String = "") -> String {
        "{\"type\": \"list\", \"title\": \"\(title)\", \"items\": [{\"key\": \"a\", \"text\": \"A\", \"detail\": \"\(detail)\"}]}"
    }

    @Test func fiveTemplatesPerTaskThenPushesAreRefusedAndPopsGiveQuotaBack() throws {
        _ = try app.setRoot(list("root"), limits: limits)
        for level in 1..<5 { _ = try app.push(list("level \(level)"), limits: limits) }
        #expect(app.stack.quotaRemaining(limits) == 0)
        #expect(app.stack.templates.count == 5)
        // The depth limit (5) and the quota (5) meet here; depth speaks first.
        #expect(throws: UIError.limit("the stack is 5 templates deep, the limit for this app (depth is 5)")) {
            try app.push(list("six"), limits: limits)
        }
        try app.pop()
        #expect(app.stack.quotaRemaining(limits) == 1)
        _ = try app.push(list("again"), limits: limits)
        #expect(app.stack.templates.count == 5)
    }

    @Test func aRefreshIsFreeAndANewMainContentCostsQuota() throws {
        let (root, _) = try app.setRoot(list("root"), limits: limits)
        for level in 1..<4 { _ = try app.push(list("level \(level)"), limits: limits) }
        let top = try #require(app.stack.templates.last?.id)
        for value in 0..<20 { _ = try app.update(top, list("level 3", detail: "\(value)"), limits: limits) }
        #expect(app.stack.quotaRemaining(limits) == 1)
        _ = try app.update(root, list("another title"), limits: limits)
        #expect(app.stack.quotaRemaining(limits) == 0)
        #expect(throws: UIError.limit("the task's 5 templates are used (quota); pop back, refresh in place, or start a new task")) {
            try app.update(top, list("yet another"), limits: limits)
        }
    }

    @Test func aRefreshKeepsEveryKeyInOrderAndAnythingElseChangesMainContent() throws {
        func rows(_ keys: [String], text: String = "A", title: String = "t") -> String {
            "{\"type\": \"list\", \"title\": \"\(title)\", \"items\": ["
                + keys.map { "{\"key\": \"\($0)\", \"text\": \"\(text)\"}" }.joined(separator: ",") + "]}"
        }
        let (id, _) = try app.setRoot(rows(["a", "b"]), limits: limits)
        let refreshes = [rows(["a", "b"], text: "new texts"), rows(["a", "b"])]
        let changes = [rows(["a", "c"]), rows(["b", "a"]), rows(["a", "b", "c"]), rows(["a"]), rows(["a"], title: "other")]
        for text in refreshes { _ = try app.update(id, text, limits: limits) }
        #expect(app.stack.quotaRemaining(limits) == 4)
        for (index, text) in changes.enumerated() where index < 4 { _ = try app.update(id, text, limits: limits) }
        #expect(app.stack.quotaRemaining(limits) == 0)
        #expect(throws: UIError.self) { try app.update(id, changes[4], limits: limits) }

        let tabs = { (key: String) in
            "{\"type\": \"tabBar\", \"tabs\": [{\"type\": \"list\", \"title\": \"One\", \"items\": [{\"key\": \"\(key)\", \"text\": \"A\"}]}]}"
        }
        let other = AppInterface(appID: "org.example.tabs", entitlements: [.audio])
        let (bar, _) = try other.setRoot(tabs("x"), limits: limits)
        _ = try other.update(bar, tabs("x"), limits: limits)
        #expect(other.stack.quotaRemaining(limits) == 4)
        _ = try other.update(bar, tabs("y"), limits: limits)
        #expect(other.stack.quotaRemaining(limits) == 3)
    }

    @Test func theQuotaAloneRefusesWhenTheStackIsShallow() throws {
        var shallow = limits
        shallow.depth = 10
        _ = try app.setRoot(list("root"), limits: shallow)
        for level in 1..<5 { _ = try app.push(list("level \(level)"), limits: shallow) }
        #expect(throws: UIError.limit("the task's 5 templates are used (quota); pop back, refresh in place, or start a new task")) {
            try app.push(list("six"), limits: shallow)
        }
        // A navigation template starts a new task; so does a launch from the HMI.
        _ = try app.push(#"{"type": "map", "buttons": []}"#, limits: shallow)
        #expect(app.stack.quotaRemaining(shallow) == 4)
        _ = try app.push(list("after the map"), limits: shallow)
        app.startTask()
        #expect(app.stack.quotaRemaining(shallow) == 4)
    }

    @Test func aTabBarIsOnlyTheRootAndModalsArePresentedOneAtATime() throws {
        #expect(throws: UIError.state("there is no root yet; call set_root first")) { try app.push(list("x"), limits: limits) }
        _ = try app.setRoot(#"{"type": "tabBar", "tabs": [{"type": "list", "key": "t", "title": "T", "items": []}]}"#, limits: limits)
        #expect(throws: UIError.limit("a tab bar may only be the root (set_root); it cannot be pushed")) {
            try app.push(#"{"type": "tabBar", "tabs": []}"#, limits: limits)
        }
        #expect(throws: UIError.invalid("an alert is presented with present(), not pushed")) { try app.push(#"{"type": "alert"}"#, limits: limits) }
        _ = try app.present(#"{"type": "alert", "title": "Sure?", "actions": [{"key": "yes", "text": "Yes"}]}"#, limits: limits)
        #expect(throws: UIError.limit("an alert is presented already; dismiss it first (one modal at a time)")) {
            try app.present(#"{"type": "actionSheet"}"#, limits: limits)
        }
        try app.dismiss()
        #expect(throws: UIError.state("nothing is presented")) { try app.dismiss() }
        #expect(throws: UIError.state("only the root is on the stack")) { try app.pop() }
    }

    @Test func thereIsOneNowPlayingTemplate() throws {
        _ = try app.setRoot(#"{"type": "tabBar", "tabs": [{"type": "nowPlaying", "key": "np"}]}"#, limits: limits)
        #expect(throws: UIError.limit("the now-playing template is on the stack already; there is one, shared")) {
            try app.push(#"{"type": "nowPlaying"}"#, limits: limits)
        }
        #expect(throws: UIError.limit("the now-playing template is on the stack already; there is one, shared")) {
            try app.setRoot(#"{"type": "tabBar", "tabs": [{"type": "nowPlaying", "key": "a"}, {"type": "nowPlaying", "key": "b"}]}"#, limits: limits)
        }
    }

    @Test func quickOrderingAppsGoTwoDeep() throws {
        let limits = DisplayLimits(profile: DisplayProfile(), entitlements: [.quickOrdering])
        let app = AppInterface(appID: "org.example.coffee", entitlements: [.quickOrdering])
        _ = try app.setRoot(list("menu"), limits: limits)
        _ = try app.push(list("order"), limits: limits)
        #expect(throws: UIError.limit("the stack is 2 templates deep, the limit for this app (depth is 2)")) {
            try app.push(list("pay"), limits: limits)
        }
    }
}

/// The limits each display profile and category gives.
@Suite struct DisplayLimitsTests {
    @Test(arguments: [(748, 456, 1.0, 8), (800, 480, 1.0, 9), (768, 1024, 2.0, 10), (1920, 720, 1.0, 14)])
    func theFourProfilesGiveTheirRowsAndTheSameListLimits(width: Int, height: Int, scale: Double, rows: Int) throws {
        var profile = DisplayProfile()
        try profile.apply(["width": .int(Int64(width)), "height": .int(Int64(height)), "scale": .double(scale)])
        let parked = DisplayLimits(profile: profile, entitlements: [.audio])
        #expect(parked.visibleRows == rows)
        #expect((parked.listItems, parked.sections, parked.tabs, parked.depth) == (100, 10, 4, 5))
        try profile.apply(["driving": true])
        let driving = DisplayLimits(profile: profile, entitlements: [.audio])
        #expect((driving.listItems, driving.sections, driving.contentItems, driving.contentDepth) == (12, 3, 12, 3))
        #expect(profile.limitedUserInterfaces == [.keyboard, .lists])
    }

    @Test func badProfileValuesAreRefusedWholeAndNamed() {
        var profile = DisplayProfile()
        #expect(throws: UIError.invalid("display.width must be 240 to 8192 pixels")) { try profile.apply(["width": 10, "driving": true]) }
        #expect(!profile.driving)
        #expect(throws: UIError.invalid("unknown key \"display.dpi\" (known: width, height, scale, driving, limitedUserInterfaces, contentStyle, attached)")) {
            try profile.apply(["dpi": 2])
        }
    }
}
