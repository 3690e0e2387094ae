import DeckBase

extension Template {
    /// The template as the limits let it show: extra sections and rows hidden (counted in
    /// `dropped`), tabs held to them one by one. The full content stays in `self`, so it returns
    /// when the limits grow again.
    public func visible(under limits: DisplayLimits) -> (template: Template, dropped: Int) {
        var shown = self
        var dropped = 0
        shown.tabs = tabs.map { tab in
            let (visible, hidden) = tab.visible(under: limits)
            dropped += hidden
            return visible
        }
        guard let (rowLimit, _) = TemplateSpec.of(kind).rowLimit?(limits) else { return (shown, dropped) }
        let sectionLimit = kind == .list ? limits.sections : 1
        var budget = rowLimit
        shown.sections = []
        for (index, section) in sections.enumerated() {
            guard index < sectionLimit, budget > 0 else {
                dropped += section.items.count
                continue
            }
            var kept = section
            kept.items = Array(section.items.prefix(budget))
            dropped += section.items.count - kept.items.count
            budget -= kept.items.count
            shown.sections.append(kept)
        }
        return (shown, dropped)
    }

    /// The template as the HMI receives it (`ui.get`): ids, texts, fields, rows in sections.
    /// Built in key order (it is read on every `ui.get` and `ui.changed`): the fields, then the
    /// template's own members over them.
    public var json: JSONValue {
        var own: [JSONObject.Member] = []
        if TemplateSpec.of(kind).buttons != nil { own.append(.init("buttons", .array(buttons.map(\.json)))) }
        if let key { own.append(.init("key", .string(key))) }
        if TemplateSpec.of(kind).rows != nil {
            own.append(.init("sections", .array(sections.map { section in
                var entry: [JSONObject.Member] = []
                if let header = section.header { entry.append(.init("header", .string(header))) }
                entry.append(.init("items", .array(section.items.map(\.json))))
                return .object(JSONObject(inKeyOrder: entry))
            })))
        }
        if kind == .tabBar { own.append(.init("tabs", .array(tabs.map(\.json)))) }
        if let title { own.append(.init("title", .string(title))) }
        let base = JSONObject(inKeyOrder: [.init("id", .int(Int64(id))), .init("type", .string(kind.rawValue))])
        return .object(base.merging(fields).merging(JSONObject(inKeyOrder: own)))
    }
}

extension TemplateItem {
    /// The fields with the item's own members over them, merged in one pass (a list shows many).
    public var json: JSONValue {
        var own: [JSONObject.Member] = [.init("id", .int(Int64(id)))]
        if let key { own.append(.init("key", .string(key))) }
        if !isSelectable { own.append(.init("selectable", false)) }
        own.append(.init("text", .string(text)))
        return .object(fields.merging(JSONObject(inKeyOrder: own)))
    }
}
