import DeckBase

extension Template {
    /// Whether the template, its rows, buttons or tabs name image `id` (`"image"` or `"images"`).
    func shows(image id: UInt64) -> Bool {
        func isID(_ value: JSONValue) -> Bool { value.intValue.flatMap { UInt64(exactly: $0) } == id }
        func names(_ fields: JSONObject) -> Bool {
            fields["image"].map(isID) == true || fields["images"]?.arrayValue?.contains(where: isID) == true
        }
        return names(fields) || sections.contains { $0.items.contains { names($0.fields) } } || buttons.contains { names($0.fields) }
            || tabs.contains { $0.shows(image: id) }
    }
}
