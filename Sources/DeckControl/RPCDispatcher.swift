import DeckBase

/// JSON-RPC 2.0 without a transport: one message (a request, a notification or a batch) in, the
/// response text out (nil when nothing is to be answered). deckd's sockets and the embedding API
/// call it with the same JSON. Loop-thread-confined.
public final class RPCDispatcher {
    public private(set) var methods: [RPCMethod] = []
    /// Each method by name, boxed with its place in `methods`: a call reads it in place, not as a copy.
    private var byName: [String: Registered] = [:]
    /// Message size and depth, batch length and response size (the transport's own limits aside).
    public var limits = ControlLimits()
    /// Topics clients may subscribe to, for `events.subscribe` and `rpc.discover`.
    public var topics: [String] = [] {
        didSet { discovery = nil }
    }
    /// `rpc.discover`'s document as last built: it changes only when a method is registered or the
    /// topics change, which drop it.
    var discovery: JSONValue?

    public init() {}

    public func register(_ method: RPCMethod) {
        let index = byName[method.name]?.index ?? methods.count
        if index < methods.count { methods[index] = method } else { methods.append(method) }
        byName[method.name] = Registered(method, index: index)
        discovery = nil
    }

    /// Handles one message; returns the response (compact JSON, no newline) or nil. An answer that
    /// comes later (a deferred method) is sent on the connection, unless it closed first.
    public func handle(_ bytes: [UInt8], connection: RPCConnection) -> String? {
        answerNow(on: connection) { handle(bytes, connection: connection, reply: $0) }
    }

    /// Handles one message and calls `reply` once with its response, during the call or when a
    /// deferred method answers; never for a notification or a batch of only those. Answers stay
    /// apart from the connection's notifications: nothing needs matching by id.
    public func handle(_ bytes: [UInt8], connection: RPCConnection, reply: @escaping (String) -> Void) {
        switch read(bytes) {
        case .refused(let line): reply(line)
        case .message(let message, let unheld): handle(message: message, unheld: unheld, connection: connection, reply: reply)
        }
    }

    public func handle(_ text: String, connection: RPCConnection) -> String? { handle(Array(text.utf8), connection: connection) }

    /// Handles one message and appends its answer and a newline to `answers` (nothing for a
    /// notification): a request answered at once is written straight there, with no text in between.
    public func handle(_ bytes: [UInt8], connection: RPCConnection, appendingTo answers: inout [UInt8]) {
        let message: JSONValue, unheld: String?
        switch read(bytes) {
        case .refused(let line):
            answers += line.utf8
            answers.append(10)
            return
        case .message(let read, let reason): (message, unheld) = (read, reason)
        }
        guard case .object = message else {
            // A batch, or not a request at all: answered as text.
            if let text = answerNow(on: connection, { handle(message: message, unheld: unheld, connection: connection, reply: $0) }) {
                answers += text.utf8
                answers.append(10)
            }
            return
        }
        switch handle(single: message, unheld: unheld, connection: connection) {
        case .now(nil): break
        case .now(let response?):
            response.encode(appendingTo: &answers)
            answers.append(10)
        case .later(let pending):
            pending.then { [weak connection] in
                if let connection, !connection.isClosed { connection.send($0.encoded()) }
            }
        }
    }

    /// A message's bytes read, or the error answer for bytes that are not one. `unheld`: why the
    /// requests holding values Deck cannot hold, read as marks (`parseMarkingUnrepresentable`), are refused.
    private enum Reading {
        case message(JSONValue, unheld: String?)
        case refused(String)
    }

    private func read(_ bytes: [UInt8]) -> Reading {
        do {
            return .message(try JSONValue.parse(bytes, limits: limits.json), unheld: nil)
        } catch let error where error.kind == .unrepresentable {
            // Valid JSON, so not a parse error: each request holding such a value is refused with its id.
            do {
                let marked = try JSONValue.parseMarkingUnrepresentable(bytes, limits: limits.json)
                let reason = if case .array = marked { RPCDispatcher.unrepresentable } else { "\(error.description) (\(RPCDispatcher.unrepresentable))" }
                return .message(marked, unheld: reason)
            } catch {
                return refused(error)  // a syntax error after it
            }
        } catch {
            return refused(error)
        }
    }

    private static let unrepresentable = "Deck holds integers in 64 bits, reals in a double, and strings without \\u0000 or lone surrogates"

    private func refused(_ error: JSONParseError) -> Reading {
        let rpcError: RPCError = switch error.kind {
        case .syntax, .unrepresentable: .parseError(error.description)
        case .tooLarge, .tooDeep: .limit(error.message)
        case .tooManyElements(let count): RPCDispatcher.batchTooLong(count, limit: limits.maxBatch)
        }
        return .refused(RPCDispatcher.response(id: .null, error: rpcError).encoded())
    }

    /// The answer to a request holding a value Deck cannot hold, which is not run; nil when it holds none.
    private static func unheldRefusal(_ request: JSONObject, reason: String) -> Answer? {
        guard JSONValue.object(request).holdsUnrepresentable else { return nil }
        guard let id = request["id"] else { return .now(nil) }  // a notification is never answered
        if id.holdsUnrepresentable { return .now(response(id: .null, error: .invalidRequest("the id: \(reason)"))) }
        if request["params"]?.holdsUnrepresentable == true { return .now(response(id: id, error: .invalidParams(reason))) }
        return .now(response(id: id, error: .invalidRequest(reason)))
    }

    private func handle(message: JSONValue, unheld: String?, connection: RPCConnection, reply: @escaping (String) -> Void) {
        if case .array(let batch) = message {
            guard !batch.isEmpty else { return reply(RPCDispatcher.response(id: .null, error: .invalidRequest("empty batch")).encoded()) }
            return handle(batch: batch, unheld: unheld, connection: connection, reply: reply)
        }
        switch handle(single: message, unheld: unheld, connection: connection) {
        case .now(let response): if let response { reply(response.encoded()) }
        case .later(let pending): pending.then { reply($0.encoded()) }
        }
    }

    /// What `start` replies during the call; a reply after it is sent on the connection, unless it closed first.
    private func answerNow(on connection: RPCConnection, _ start: (@escaping (String) -> Void) -> Void) -> String? {
        var now: String?
        var returned = false
        start { [weak connection] response in
            if !returned {
                now = response
            } else if let connection, !connection.isClosed {
                connection.send(response)
            }
        }
        returned = true
        return now
    }

    public func handle(_ text: String, connection: RPCConnection, reply: @escaping (String) -> Void) {
        handle(Array(text.utf8), connection: connection, reply: reply)
    }

    /// The answer to a request refused without being run (its transport is closing): the error
    /// with the request's id, or with a null id for a batch or unreadable text; nil for a
    /// notification, which gets no answer.
    public func refusal(of request: String, _ error: RPCError) -> String? {
        guard let message = try? JSONValue.parseMarkingUnrepresentable(Array(request.utf8), limits: limits.json) else {
            return RPCDispatcher.errorLine(error)
        }
        guard case .object(let members) = message else { return RPCDispatcher.errorLine(error) }
        guard let id = members["id"] else { return nil }
        return RPCDispatcher.response(id: RPCDispatcher.isValidID(id) ? id : .null, error: error).encoded()
    }

    /// An error response with a null id, for failures before a request could be read.
    public static func errorLine(_ error: RPCError) -> String { response(id: .null, error: error).encoded() }

    /// A notification line for `topic`, as subscribed clients receive it.
    public static func notification(_ topic: String, _ params: JSONValue) -> String {
        JSONValue.object(["jsonrpc": "2.0", "method": .string(topic), "params": params]).encoded()
    }

    /// A batch refused whole, before its members were even read into values.
    private static func batchTooLong(_ count: Int, limit: Int) -> RPCError {
        .limit("a batch of \(count) requests is over the limit of \(limit) (control.maxBatch)")
    }

    /// Answers each member in order while the answer stays within `maxResponseBytes`; members past
    /// that are not run and are answered with a limit error, so one message cannot grow memory unbounded.
    /// A batch with a member answered later is replied whole once all are in.
    private func handle(batch: [JSONValue], unheld: String?, connection: RPCConnection, reply: @escaping (String) -> Void) {
        let answers = BatchAnswers()
        var size = 2
        for message in batch {
            if size > limits.maxResponseBytes {
                guard case .object(let request) = message, let id = request["id"], RPCDispatcher.isValidID(id) else { continue }
                let error = RPCError.limit("the answer to this batch is over \(limits.maxResponseBytes) bytes (control.maxResponseBytes); send fewer requests at once")
                answers.parts.append(RPCDispatcher.response(id: id, error: error).encoded())
                continue
            }
            switch handle(single: message, unheld: unheld, connection: connection) {
            case .now(nil): continue
            case .now(let response?):
                let text = response.encoded()
                size += text.utf8.count + 1
                answers.parts.append(text)
            case .later(let pending):
                let slot = answers.parts.count
                answers.parts.append(nil)
                answers.waiting += 1
                pending.then { response in
                    answers.parts[slot] = response.encoded()
                    answers.waiting -= 1
                    if answers.waiting == 0, answers.sealed, let line = answers.line { reply(line) }
                }
            }
        }
        answers.sealed = true  // a member answered while later ones ran is in `parts`, replied below
        if answers.waiting == 0, let line = answers.line { reply(line) }
    }

    /// One request's answer: now (nil for a notification), or later, from a deferred method.
    private enum Answer {
        case now(JSONValue?)
        case later(MappedAnswer)
    }

    private func handle(single message: JSONValue, unheld: String?, connection: RPCConnection) -> Answer {
        guard case .object(let request) = message else { return .now(RPCDispatcher.response(id: .null, error: .invalidRequest("not an object"))) }
        if let unheld, let refusal = RPCDispatcher.unheldRefusal(request, reason: unheld) { return refusal }
        let id = request["id"]
        if let id, !RPCDispatcher.isValidID(id) {
            return .now(RPCDispatcher.response(id: .null, error: .invalidRequest("id must be a string, a number or null")))
        }
        let responseID = id ?? .null
        guard request["jsonrpc"] == "2.0" else { return .now(RPCDispatcher.response(id: responseID, error: .invalidRequest("jsonrpc must be \"2.0\""))) }
        guard case .string(let name)? = request["method"] else {
            return .now(RPCDispatcher.response(id: responseID, error: .invalidRequest("method must be a string")))
        }
        var params = RPCParams()
        switch request["params"] {
        case nil: break
        case .array(let list)?: params.positional = list
        case .object(let members)?: params.named = members
        default: return .now(RPCDispatcher.response(id: responseID, error: .invalidRequest("params must be an array or an object")))
        }
        let outcome: Outcome
        if let registered = byName[name] {
            if !connection.authenticated && !registered.method.open {
                outcome = .now(.failure(RPCError(code: -32005, message: "Unauthorized: call auth.login with the token first")))
            } else {
                outcome = call(registered, params: params, connection: connection)
            }
        } else {
            outcome = .now(.failure(.methodNotFound(name)))
        }
        guard let id else { return .now(nil) }  // a notification is never answered
        switch outcome {
        case .now(let result): return .now(RPCDispatcher.response(id: id, result))
        case .later(let pending):
            if let result = pending.result { return .now(RPCDispatcher.response(id: id, result)) }
            return .later(pending.map { RPCDispatcher.response(id: id, $0) })
        }
    }

    /// A method's result: now, or from a deferred method, through a pending answer (made only for those).
    private enum Outcome {
        case now(Result<JSONValue, RPCError>)
        case later(PendingAnswer)
    }

    private func call(_ registered: Registered, params: RPCParams, connection: RPCConnection) -> Outcome {
        let declared = registered.method.params
        // Keys come in byte order, so the first unknown one reported is the same every time.
        if let unknown = params.named.keys.first(where: { key in !declared.contains { $0.name == key } }) {
            return .now(.failure(.invalidParams("unknown parameter \"\(PrintableText.excerpt(unknown))\" for \(registered.method.name)")))
        }
        if params.positional.count > declared.count {
            return .now(.failure(.invalidParams("\(registered.method.name) takes at most \(declared.count) parameters")))
        }
        for (index, param) in declared.enumerated() {
            let value = params.value(param.name, at: index)
            if param.required && value == nil { return .now(.failure(.invalidParams("missing \"\(param.name)\""))) }
            // Before the method sees it: no long string is held, logged or quoted back in an error.
            if let limit = param.maxLength, let text = value?.stringValue, text.utf8.count > limit, text.unicodeScalars.count > limit {
                return .now(.failure(.invalidParams("\"\(param.name)\" has \(text.unicodeScalars.count) characters; it takes at most \(limit)")))
            }
        }
        let call = RPCCall(params: params, connection: connection, declared: declared)
        switch registered.method.body {
        case .immediate(let handler):
            do throws(RPCError) { return .now(.success(try handler(call))) } catch { return .now(.failure(error)) }
        case .deferred(let handler):
            let pending = PendingAnswer()
            do throws(RPCError) { try handler(call, pending.fulfil) } catch { pending.fulfil(.failure(error)) }
            return .later(pending)
        }
    }

    private static func isValidID(_ id: JSONValue) -> Bool {
        switch id {
        case .string, .int, .null: true
        case .double(let value): !value.isNaN  // NaN: a value Deck cannot hold, marked
        default: false
        }
    }

    static func response(id: JSONValue, _ result: Result<JSONValue, RPCError>) -> JSONValue {
        switch result {
        case .success(let value): .object(JSONObject(inKeyOrder: [.init("id", id), .init("jsonrpc", "2.0"), .init("result", value)]))
        case .failure(let error): response(id: id, error: error)
        }
    }

    static func response(id: JSONValue, error: RPCError) -> JSONValue {
        .object(JSONObject(inKeyOrder: [.init("error", error.json), .init("id", id), .init("jsonrpc", "2.0")]))
    }

    /// A registered method, held once so a call borrows it.
    private final class Registered {
        let method: RPCMethod
        let index: Int

        init(_ method: RPCMethod, index: Int) {
            self.method = method
            self.index = index
        }
    }
}
