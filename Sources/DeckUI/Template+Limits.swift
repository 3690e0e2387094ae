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
    public var json: JSONValue {
        var object: JSONObject = ["id": .int(Int64(id)), "type": .string(kind.rawValue)]
        object.merge(fields)
        if let title { object["title"] = .string(title) }
        if let key { object["key"] = .string(key) }
        if TemplateSpec.of(kind).rows != nil {
            object["sections"] = .array(sections.map { section in
                var entry: JSONObject = ["items": .array(section.items.map(\.json))]
                if let header = section.header { entry["header"] = .string(header) }
                return .object(entry)
            })
        }
        if TemplateSpec.of(kind).buttons != nil { object["buttons"] = .array(buttons.map(\.json)) }
        if kind == .tabBar { object["tabs"] = .array(tabs.map(\.json)) }
        return .object(object)
    }
}

extension TemplateItem {
    public var json: JSONValue {
        var object = fields
        object["id"] = .int(Int64(id))
        object["text"] = .string(text)
        if let key { object["key"] = .string(key) }
        if !isSelectable { object["selectable"] = false }
        return .object(object)
    }
}
