import DeckBase
import Glibc

/// Where the runtime's notifications go: the topics clients may subscribe to, every connection
/// (socket or embedding handle), and one sequence for the whole runtime (over the notifications
/// made: publishers skip a topic no connection takes, see `isWanted`). Each notification's
/// params are its payload object plus `seq` (1, 2, …, gapless) and `time` (milliseconds since the
/// Unix epoch). While a transport holds the hub (handling a request), notifications wait, so the
/// answer to a request always goes out before the notifications it caused. Loop-thread-confined.
public final class EventHub {
    public let topics: [String]
    private var connections: [ObjectIdentifier: RPCConnection] = [:]
    public private(set) var sequence = 0
    private var holds = 0
    private var waiting: [(topic: String, line: String)] = []

    public init(topics: [String]) { self.topics = topics }

    /// Starts delivering to `connection` what it subscribes to.
    public func add(_ connection: RPCConnection) { connections[ObjectIdentifier(connection)] = connection }

    public func remove(_ connection: RPCConnection) { connections[ObjectIdentifier(connection)] = nil }

    /// Whether a connection takes `topic` now: a payload nobody takes is not built, and takes no number.
    public func isWanted(_ topic: String) -> Bool { connections.values.contains { $0.topics.contains(topic) } }

    /// Numbers, stamps and sends `payload` on `topic` to every subscriber (now, or on release).
    public func publish(_ topic: String, _ payload: JSONObject) {
        sequence += 1
        var params = payload
        params["seq"] = .int(Int64(sequence))
        params["time"] = .int(EventHub.milliseconds())
        let line = RPCDispatcher.notification(topic, .object(params))
        if holds > 0 {
            waiting.append((topic, line))
        } else {
            deliver(topic, line)
        }
    }

    /// Holds notifications back while a request is handled and its answer written.
    public func hold() { holds += 1 }

    /// Ends a hold; the last one sends what waited, in order.
    public func release() {
        holds -= 1
        guard holds == 0 else { return }
        let pending = waiting
        waiting = []
        for (topic, line) in pending { deliver(topic, line) }
    }

    private func deliver(_ topic: String, _ line: String) {
        for connection in connections.values where connection.topics.contains(topic) { connection.send(line) }
    }

    private static func milliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
