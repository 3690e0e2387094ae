/// Why a JSON text was refused, with the position of the byte at fault (1-based line and column,
/// the column counted in characters).
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case syntax, tooLarge, tooDeep
        /// Valid JSON with a value Deck cannot hold: an integer beyond 64 bits, a real beyond a
        /// double, a string with `\u0000` or a lone surrogate escape.
        case unrepresentable
        /// A top-level array with this many elements, over `maxTopLevelElements`.
        case tooManyElements(Int)
    }
    public var kind: Kind
    public var line: Int
    public var column: Int
    public var message: String

    public var description: String {
        kind == .syntax || kind == .unrepresentable ? "line \(line), column \(column): \(message)" : message
    }
}
