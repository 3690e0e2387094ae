import DeckBase

/// What a template is checked against while it is read.
package struct TemplateRules {
    var entitlements: Set<Entitlement>
    var limits: DisplayLimits
    /// Whether an image id was handed over with add_image.
    var imageExists: (UInt64) -> Bool

    /// Template text larger than this is refused before it is parsed.
    package static let maxBytes = 256 << 10
}

extension Template {
    /// Reads a plugin's template JSON, refusing what is malformed, not entitled or over a
    /// structural limit. Strings over the limit are cut (counted in `shortened`); list-like
    /// overflow is kept here and hidden by `visible(under:)`.
    static func parse(_ text: String, rules: TemplateRules) throws(UIError) -> (template: Template, shortened: Int) {
        guard text.utf8.count <= TemplateRules.maxBytes else {
            throw .limit("the template is \(text.utf8.count) bytes, over the limit of \(TemplateRules.maxBytes)")
        }
        let json: JSONValue
        do { json = try JSONValue.parse(text, limits: JSONLimits(maxBytes: TemplateRules.maxBytes, maxDepth: 16)) } catch {
            throw .invalid("the template is not valid JSON: \(error)")
        }
        var reader = TemplateReader(rules: rules)
        let template = try reader.template(json, path: "template", asTab: false)
        return (template, reader.shortened)
    }
}

/// Walks one template's JSON; counts the strings it had to shorten.
private struct TemplateReader {
    let rules: TemplateRules
    var shortened = 0
    private var keys: Set<String> = []

    init(rules: TemplateRules) { self.rules = rules }

    mutating func template(_ json: JSONValue, path: @autoclosure () -> String, asTab: Bool) throws(UIError) -> Template {
        guard case .object(let members) = json else { throw .invalid("\(path()) must be an object, not \(json.typeName)") }
        guard let typeName = members["type"]?.stringValue else { throw .invalid("\(path()) needs a \"type\"") }
        guard let kind = TemplateKind(rawValue: typeName) else {
            throw .invalid("\(path()): unknown type \"\(PrintableText.excerpt(typeName))\" (known: \(TemplateKind.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        try kind.check(rules.entitlements)
        if asTab, kind == .tabBar || kind.isModal { throw .limit("\(path()): \(kind.withArticle) cannot be a tab") }
        let spec = TemplateSpec.of(kind)
        var template = Template(kind: kind)
        var known: Set<String> = ["type", "title", "key"]
        if let rows = spec.rows { known.insert(rows) }
        if kind == .list { known.insert("items") }
        if let buttons = spec.buttons { known.insert(buttons) }
        if kind == .tabBar { known.insert("tabs") }
        known.formUnion(spec.fields)
        for (key, value) in members {
            guard known.contains(key) else {
                throw .invalid("\(path()): unknown key \"\(PrintableText.excerpt(key))\" for a \(kind.rawValue) (known: \(known.sorted().joined(separator: ", ")))")
            }
            switch key {
            case "type": break
            case "title": template.title = try string(value, "\(path()).title")
            case "key": template.key = try itemKey(value, "\(path()).key")
            case "tabs":
                guard let tabs = value.arrayValue else { throw .invalid("\(path()).tabs must be an array of templates") }
                guard tabs.count <= rules.limits.tabs else {
                    throw .limit("a tab bar takes at most \(rules.limits.tabs) tabs (tabs, for this app's categories); this one has \(tabs.count)")
                }
                for (index, tab) in tabs.enumerated() { template.tabs.append(try self.template(tab, path: "\(path()).tabs[\(index)]", asTab: true)) }
            case spec.buttons:
                guard let buttons = value.arrayValue else { throw .invalid("\(path()).\(key) must be an array") }
                if let (limit, name) = spec.buttonLimit?(rules.limits), buttons.count > limit {
                    throw .limit("\(kind.withArticle) takes at most \(limit) \(key) (\(name)); this one has \(buttons.count)")
                }
                for (index, button) in buttons.enumerated() { template.buttons.append(try item(button, "\(path()).\(key)[\(index)]")) }
            case "sections" where kind == .list:
                guard let sections = value.arrayValue else { throw .invalid("\(path()).sections must be an array") }
                for (index, section) in sections.enumerated() {
                    func at() -> String { "\(path()).sections[\(index)]" }
                    guard case .object(let fields) = section else { throw .invalid("\(at()) must be an object") }
                    if let extra = fields.first(where: { $0.key != "header" && $0.key != "items" }) {
                        throw .invalid("\(at()): unknown key \"\(PrintableText.excerpt(extra.key))\" (known: header, items)")
                    }
                    template.sections.append(TemplateSection(header: try fields["header"].map { v throws(UIError) in try string(v, "\(at()).header") },
                                                             items: try items(fields["items"] ?? [], "\(at()).items")))
                }
            case spec.rows, "items":
                template.sections.append(TemplateSection(items: try items(value, "\(path()).\(key)")))
            case "image":
                try imageID(value, "\(path()).image")
                template.fields[key] = value
            default:
                template.fields[key] = try field(value, "\(path()).\(key)")
            }
        }
        return template
    }

    private mutating func items(_ json: JSONValue, _ path: @autoclosure () -> String) throws(UIError) -> [TemplateItem] {
        guard let list = json.arrayValue else { throw .invalid("\(path()) must be an array") }
        var items: [TemplateItem] = []
        for (index, entry) in list.enumerated() { items.append(try item(entry, "\(path())[\(index)]")) }
        return items
    }

    private mutating func item(_ json: JSONValue, _ path: @autoclosure () -> String) throws(UIError) -> TemplateItem {
        guard case .object(let members) = json else { throw .invalid("\(path()) must be an object, not \(json.typeName)") }
        let text = try (members["text"] ?? members["title"]).map { v throws(UIError) in try string(v, "\(path()).text") }
        var item = TemplateItem(text: text ?? "")
        // Members come in key order, so the fields do too.
        var fields: [JSONObject.Member] = []
        for (key, value) in members {
            guard let member = TemplateSpec.ItemMember.named[key] else {
                throw .invalid("\(path()): unknown key \"\(PrintableText.excerpt(key))\" (known: key, text, \(TemplateSpec.ItemMember.fieldNames))")
            }
            switch member {
            case .text, .title: continue
            case .key:
                item.key = try itemKey(value, "\(path()).key")
                continue
            case .image: try imageID(value, "\(path()).image")
            case .images:
                guard let ids = value.arrayValue, ids.allSatisfy(isImageID) else {
                    throw .invalid("\(path()).images must be an array of image ids from add_image")
                }
            case .kind:
                guard let kind = value.stringValue, ["row", "message", "images"].contains(kind) else {
                    throw .invalid("\(path()).kind must be row, message or images")
                }
                if kind == "message", !rules.entitlements.contains(.communication) {
                    throw .notEntitled("\(path()): message rows need the communication entitlement (the plugin has: \(Entitlement.list(rules.entitlements)))")
                }
            case .accessory: try choice(value, path(), key, ["none", "disclosure", "cloud"])
            case .style: try choice(value, path(), key, ["default", "cancel", "destructive"])
            case .type: try choice(value, path(), key, ["shuffle", "repeat", "rate", "addToLibrary", "more", "image"])
            case .playing, .selected, .enabled:
                guard value.boolValue != nil else { throw .invalid("\(path()).\(key) must be true or false") }
            case .latitude, .longitude:
                guard let degrees = value.doubleValue, abs(degrees) <= (member == .latitude ? 90 : 180) else {
                    throw .invalid("\(path()).\(key) must be a number of degrees")
                }
            case .detail, .imageURI:
                fields.append(JSONObject.Member(key, .string(try string(value, "\(path()).\(key)"))))
                continue
            }
            fields.append(JSONObject.Member(key, value))
        }
        item.fields = JSONObject(inKeyOrder: fields)
        if text == nil && item.fields["kind"] != "images" { throw .invalid("\(path()) needs a \"text\"") }
        return item
    }

    private func imageID(_ value: JSONValue, _ path: @autoclosure () -> String) throws(UIError) {
        guard isImageID(value) else { throw .invalid("\(path()): \(PrintableText.excerpt(value.encoded())) is not an image id from add_image") }
    }

    private func isImageID(_ value: JSONValue) -> Bool { value.intValue.map { $0 > 0 && rules.imageExists(UInt64($0)) } ?? false }

    /// A key unique within the template.
    private mutating func itemKey(_ value: JSONValue, _ path: @autoclosure () -> String) throws(UIError) -> String {
        guard let key = value.stringValue, !key.isEmpty, key.utf8.count <= 256 else { throw .invalid("\(path()) must be a string of 1 to 256 bytes") }
        guard keys.insert(key).inserted else { throw .invalid("\(path()): the key \"\(key)\" is used twice in the template") }
        return key
    }

    private func choice(_ value: JSONValue, _ path: @autoclosure () -> String, _ key: String, _ allowed: [String]) throws(UIError) {
        guard let text = value.stringValue, allowed.contains(text) else { throw .invalid("\(path()).\(key) must be one of \(allowed.joined(separator: ", "))") }
    }

    /// A text, cut to the display's string limit.
    private mutating func string(_ value: JSONValue, _ path: @autoclosure () -> String) throws(UIError) -> String {
        guard let text = value.stringValue else { throw .invalid("\(path()) must be a string, not \(value.typeName)") }
        let limit = rules.limits.stringCharacters
        // A character takes at least one byte: only a text of more bytes than the limit needs counting.
        guard text.utf8.count > limit, text.count > limit else { return text }
        shortened += 1
        return String(text.prefix(limit - 1)) + "…"
    }

    /// A kind-specific value: strings are cut, numbers and flags kept, objects and arrays (map
    /// estimates and maneuvers) have their strings cut too.
    private mutating func field(_ value: JSONValue, _ path: @autoclosure () -> String) throws(UIError) -> JSONValue {
        switch value {
        case .string: return .string(try string(value, path()))
        case .array(let list):
            var out: [JSONValue] = []
            for (index, element) in list.prefix(rules.limits.listItems).enumerated() { out.append(try field(element, "\(path())[\(index)]")) }
            return .array(out)
        case .object(let members):
            var out: JSONObject = [:]
            for (key, element) in members { out[key] = try field(element, "\(path()).\(key)") }
            return .object(out)
        case .null: throw .invalid("\(path()) may not be null")
        default: return value
        }
    }
}
