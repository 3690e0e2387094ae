import DeckBase
import DeckSession

extension RuntimeConfiguration {
    /// `"pins": {"navigation": "Cabin", "systemSound": "Cabin"}`: contexts kept on a named sink
    /// when app audio moves. Every pin names the same sink: the output mixes at most four ways
    /// (app audio, pinned audio, both, silence).
    mutating func applyPins(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else { throw .invalid(path, "\"pins\" must be an object of context: sink name") }
        var pins: [AudioContext: String] = [:]
        for (key, value) in members {
            guard let context = AudioContext(rawValue: key) else {
                throw .invalid(path, "pins: unknown context \"\(key)\" (known: \(AudioContext.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            guard let name = value.stringValue, !name.isEmpty else { throw .invalid(path, "pins.\(key) must be a sink name") }
            pins[context] = name
        }
        let names = Set(pins.values)
        guard names.count <= 1 else {
            throw .invalid(path, "pins name \(names.count) sinks (\(names.sorted().joined(separator: ", "))); every pinned context must name the same sink")
        }
        self.pins = pins
    }
}
