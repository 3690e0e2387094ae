import FoundationEssentials

/// An app's settings object (`appSettings.<id>` in the config), read key by key: an unknown key, or
/// a value of the wrong type or out of range, is a problem named for the log, and that key keeps
/// its default while the others apply.
public struct AppSettings {
    private enum Value: Decodable {
        case string(String)
        case number(Double)
        case strings([String])
        case null
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let text = try? container.decode(String.self) {
                self = .string(text)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let list = try? container.decode([String].self) {
                self = .strings(list)
            } else {
                self = .other
            }
        }
    }

    private let values: [String: Value]
    /// What was wrong, one sentence each, for the app to log.
    public private(set) var problems: [String] = []

    /// Reads the object `json`; `known` are the keys the app reads.
    public init(json: String, known: [String]) {
        guard let values = try? JSONDecoder().decode([String: Value].self, from: Data(json.utf8)) else {
            self.values = [:]
            problems = ["the settings are not a JSON object; every setting keeps its default"]
            return
        }
        self.values = values
        problems = values.keys.filter { !known.contains($0) }.sorted().map { "unknown setting \"\($0)\" (known: \(known.joined(separator: ", ")))" }
    }

    /// A non-empty string: nil when absent, null or wrong.
    public mutating func string(_ key: String, meaning: String) -> String? {
        read(key, meaning) { if case .string(let text) = $0, !text.isEmpty { text } else { nil } }
    }

    /// A list of strings: nil when absent, null or wrong.
    public mutating func strings(_ key: String, meaning: String) -> [String]? {
        read(key, meaning) { if case .strings(let list) = $0 { list } else { nil } }
    }

    /// A number within `range`: nil when absent, null or wrong.
    public mutating func number(_ key: String, in range: ClosedRange<Double>, unit: String) -> Double? {
        read(key, "a number from \(range.lowerBound) to \(range.upperBound) \(unit)") {
            if case .number(let number) = $0, range.contains(number) { number } else { nil }
        }
    }

    /// `key`'s value as `accept` takes it; a value it refuses is a problem saying what it `must` be.
    private mutating func read<T>(_ key: String, _ must: String, _ accept: (Value) -> T?) -> T? {
        guard let value = values[key] else { return nil }
        if case .null = value { return nil }
        if let accepted = accept(value) { return accepted }
        problems.append("\"\(key)\" must be \(must); its default applies")
        return nil
    }
}
