import DeckBase

/// An answer that may arrive after the call returned: the first `fulfil` counts, later ones are
/// ignored; whoever waits registers with `then`. Loop-thread-confined.
final class PendingAnswer {
    private(set) var result: Result<JSONValue, RPCError>?
    private var waiter: ((Result<JSONValue, RPCError>) -> Void)?

    func fulfil(_ result: Result<JSONValue, RPCError>) {
        guard self.result == nil else { return }
        self.result = result
        waiter?(result)
        waiter = nil
    }

    /// The answer turned into a response, for whoever sends it.
    func map(_ transform: @escaping (Result<JSONValue, RPCError>) -> JSONValue) -> MappedAnswer {
        MappedAnswer(source: self, transform: transform)
    }

    fileprivate func wait(_ body: @escaping (Result<JSONValue, RPCError>) -> Void) {
        if let result { body(result) } else { waiter = body }
    }
}

/// A pending answer seen as the response object it becomes.
struct MappedAnswer {
    fileprivate let source: PendingAnswer
    fileprivate let transform: (Result<JSONValue, RPCError>) -> JSONValue

    func then(_ body: @escaping (JSONValue) -> Void) {
        let transform = transform
        source.wait { body(transform($0)) }
    }
}

/// A batch's answers in request order, some still to come.
final class BatchAnswers {
    var parts: [String?] = []
    var waiting = 0
    /// Set once every member has run: only then may the last late answer send the batch.
    var sealed = false

    /// The batch's response line once every part is in; nil for a batch of notifications only.
    var line: String? {
        let done = parts.compactMap { $0 }
        return done.isEmpty ? nil : "[" + done.joined(separator: ",") + "]"
    }
}
