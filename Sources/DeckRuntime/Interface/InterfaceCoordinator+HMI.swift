import DeckBase
import DeckControl
import DeckPlugins
import DeckUI

/// What the HMI sees and does: a zone's foreground app's screen (`ui.get`), selecting, going back.
extension InterfaceCoordinator {
    /// `zone`'s foreground app's visible stack (or `appID`'s), with the limits and quota in force.
    /// Built in key order: the HMI reads it on every change of the screen.
    public func state(of appID: String? = nil, zone: Int = 0, nowPlaying: () -> JSONValue) -> JSONValue {
        let appsJSON = JSONValue.array(apps.keys.sorted().filter { zoneOf($0) == zone }.map(JSONValue.string))
        let display = profiles[zone].json
        guard let id = appID ?? foregrounds[zone], let app = apps[id] else {
            return .object(JSONObject(inKeyOrder: [.init("app", .null), .init("apps", appsJSON), .init("display", display)]))
        }
        let limits = limits(for: app)
        let quotaRemaining = app.stack.quotaRemaining(limits), handlerTimeouts = app.handlerTimeouts
        let stack = JSONValue.array(app.stack.templates.map { visibleJSON($0, limits) })
        let modal = app.stack.modal.map { visibleJSON($0, limits) } ?? .null
        let selectedTab: Int? = app.stack.root?.kind == .tabBar ? app.stack.selectedTab : .none
        let pendingJSON = JSONValue.array(pending.values.compactMap { entry -> JSONValue? in
            if case .selection(id, let item) = entry.what { return .int(Int64(item)) }
            return nil
        }.sorted { $0.intValue! < $1.intValue! })
        let shownNowPlaying: JSONValue? = app.stack.showsNowPlaying ? nowPlaying() : .none
        // Last, as before: reading the content may ask the plugin for a level, so all else is read first.
        let content: JSONValue? = app.offersContent && profile(of: app).attached ? contentJSON(app, limits) : .none
        var members: [JSONObject.Member] = [.init("app", .string(id)), .init("apps", appsJSON)]
        if let content { members.append(.init("content", content)) }
        members.append(.init("display", display))
        members.append(.init("handlerTimeouts", .int(Int64(handlerTimeouts))))
        let images = app.imageUsage
        members.append(.init("images", .object(JSONObject(inKeyOrder: [.init("count", .int(Int64(images.count))),
                                                                         .init("bytes", .int(Int64(images.bytes)))]))))
        members.append(.init("limits", limits.json))
        members.append(.init("modal", modal))
        if let shownNowPlaying { members.append(.init("nowPlaying", shownNowPlaying)) }
        members.append(.init("pending", pendingJSON))
        members.append(.init("quotaRemaining", .int(Int64(quotaRemaining))))
        if let selectedTab { members.append(.init("selectedTab", .int(Int64(selectedTab)))) }
        members.append(.init("stack", stack))
        return .object(JSONObject(inKeyOrder: members))
    }

    /// A template as the limits let it show, with what they cut: in all (`dropped`), and for a tab
    /// bar also on each tab, so the HMI can mark the list it shows as it does a plain list.
    private func visibleJSON(_ template: Template, _ limits: DisplayLimits) -> JSONValue {
        let (shown, dropped) = template.visible(under: limits)
        guard case .object(var object) = shown.json else { return shown.json }
        if dropped > 0 { object["dropped"] = .int(Int64(dropped)) }
        if case .array(let tabs)? = object["tabs"] {
            object["tabs"] = .array(zip(tabs, template.tabs).map { json, tab in
                let hidden = tab.visible(under: limits).dropped
                guard hidden > 0, case .object(var entry) = json else { return json }
                entry["dropped"] = .int(Int64(hidden))
                return .object(entry)
            })
        }
        return .object(object)
    }

    /// The driver picked an item, button, action or tab of `zone`'s foreground app's screen.
    public func select(_ id: UInt64, zone: Int = 0) throws(RPCError) {
        let app = try foregroundApp(zone: zone)
        let stack = app.stack
        if let modal = stack.modal {
            guard let item = modal.buttons.first(where: { $0.id == id }) else {
                throw .invalidParams("\(modal.kind.withArticle) is presented; only its actions (\(modal.buttons.map { String($0.id) }.joined(separator: ", "))) can be selected")
            }
            return try hand(item, in: modal, app)
        }
        guard let top = stack.templates.last else { throw .commandFailed("\(app.appID) shows no template") }
        if top.kind == .tabBar {
            if let index = top.tabs.firstIndex(where: { $0.id == id }) {
                app.selectTab(index)
                onChange?()
                return
            }
            let tab = top.tabs.indices.contains(stack.selectedTab) ? top.tabs[stack.selectedTab] : top
            return try pick(id, in: tab, app)
        }
        try pick(id, in: top, app)
    }

    private func pick(_ id: UInt64, in template: Template, _ app: AppInterface) throws(RPCError) {
        let visible = template.visible(under: limits(for: app)).template
        guard let item = (visible.sections.flatMap(\.items) + visible.buttons).first(where: { $0.id == id }) else {
            throw .invalidParams("no item \(id) on \(app.appID)'s screen; ui.get lists the ids")
        }
        try hand(item, in: template, app)
    }

    private func hand(_ item: TemplateItem, in template: Template, _ app: AppInterface) throws(RPCError) {
        guard item.isSelectable, let key = item.key else {
            throw .invalidParams("item \(item.id) cannot be selected (\(item.fields["kind"] == "message" ? "a message row" : "it has no key"))")
        }
        let token = takeToken(.selection(app: app.appID, item: item.id))
        guard plugins.plugin(id: app.appID)?.select(templateID: template.id, key: key, token: token) == true else {
            _ = finish(token, app: app.appID)
            throw .commandFailed("\(app.appID) is not active")
        }
        onChange?()
    }

    /// Goes back: dismisses the modal, else pops the top template, else leaves a content level;
    /// at the root it does nothing, as a head unit's back button. False when nothing changed.
    @discardableResult
    public func back(zone: Int = 0) throws(RPCError) -> Bool {
        let app = try foregroundApp(zone: zone)
        if app.stack.modal != nil {
            try? app.dismiss()
        } else if app.stack.templates.count > 1 {
            try? app.pop()
        } else if app.content.browsePath.count > 1 {
            app.content.browsePath.removeLast()
        } else {
            return false
        }
        onChange?()
        return true
    }

    func foregroundApp(zone: Int) throws(RPCError) -> AppInterface {
        guard profiles[zone].attached else { throw .commandFailed("no display is attached (display.set {\"attached\": true})") }
        guard let id = foregrounds[zone], let app = apps[id] else {
            throw .commandFailed(profiles.count > 1 ? "no app with a UI is in this zone" : "no app with a UI is loaded")
        }
        return app
    }
}
