import DeckBase

/// The car's display as the runtime knows it: size, scale, what is limited while driving, and
/// whether it is attached at all (CarPlay's scene connect and disconnect).
public struct DisplayProfile: Equatable, Sendable {
    /// User interfaces the car restricts, as CarPlay's `limitedUserInterfaces`.
    public enum LimitedInterface: String, Sendable, CaseIterable, Comparable {
        case keyboard, lists
        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    }

    public enum ContentStyle: String, Sendable, CaseIterable { case light, dark }

    public var width = 800
    public var height = 480
    public var scale = 1.0
    public var limitedUserInterfaces: Set<LimitedInterface> = []
    public var contentStyle = ContentStyle.dark
    public var attached = true

    public init() {}

    /// The keys `apply` takes.
    public static let keys = ["width", "height", "scale", "driving", "limitedUserInterfaces", "contentStyle", "attached"]

    /// Driving limits lists and the keyboard, as head units do when the car moves.
    public var driving: Bool { limitedUserInterfaces.contains(.lists) }

    /// Takes `display.set`'s (or the config's) keys; every value is checked before any is applied.
    public mutating func apply(_ json: JSONValue, in context: String = "display") throws(UIError) {
        guard case .object(let members) = json else { throw .invalid("\(context) must be an object") }
        var next = self
        for (key, value) in members {
            switch key {
            case "width", "height":
                guard let number = value.intValue, (240...8192).contains(number) else { throw .invalid("\(context).\(key) must be 240 to 8192 pixels") }
                if key == "width" { next.width = Int(number) } else { next.height = Int(number) }
            case "scale":
                guard let number = value.doubleValue, (0.5...4).contains(number) else { throw .invalid("\(context).scale must be 0.5 to 4") }
                next.scale = number
            case "driving":
                guard let flag = value.boolValue else { throw .invalid("\(context).driving must be true or false") }
                next.limitedUserInterfaces = flag ? [.keyboard, .lists] : []
            case "limitedUserInterfaces":
                guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count,
                      let set = Optional(Set(names.compactMap(LimitedInterface.init))), set.count == Set(names).count else {
                    throw .invalid("\(context).limitedUserInterfaces must be an array of keyboard, lists")
                }
                next.limitedUserInterfaces = set
            case "contentStyle":
                guard let style = value.stringValue.flatMap(ContentStyle.init) else { throw .invalid("\(context).contentStyle must be light or dark") }
                next.contentStyle = style
            case "attached":
                guard let flag = value.boolValue else { throw .invalid("\(context).attached must be true or false") }
                next.attached = flag
            default:
                throw .invalid("unknown key \"\(context).\(key)\" (known: \(DisplayProfile.keys.joined(separator: ", ")))")
            }
        }
        self = next
    }

    /// In key order: part of every `ui.get` and `ui.changed`.
    public var json: JSONValue {
        .object(JSONObject(inKeyOrder: [
            .init("attached", .bool(attached)),
            .init("contentStyle", .string(contentStyle.rawValue)),
            .init("driving", .bool(driving)),
            .init("height", .int(Int64(height))),
            .init("limitedUserInterfaces", .array(limitedUserInterfaces.sorted().map { .string($0.rawValue) })),
            .init("scale", .double(scale)),
            .init("width", .int(Int64(width))),
        ]))
    }
}
