/// Bounds applied to untrusted JSON before and while it is parsed.
public struct JSONLimits: Sendable, Equatable {
    public var maxBytes: Int
    public var maxDepth: Int
    /// Most elements in a top-level array (a JSON-RPC batch), checked before any is converted.
    public var maxTopLevelElements: Int

    public init(maxBytes: Int = 1 << 20, maxDepth: Int = 64, maxTopLevelElements: Int = .max) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.maxTopLevelElements = maxTopLevelElements
    }
}
