import DeckBase
import DeckIsolation
import DeckRuntime
import MediaPlayback

/// One parser that reads what outsiders send or write, fed arbitrary bytes: by libFuzzer
/// (`make fuzz`) and, over the saved corpus, by the test suite. A target must never crash, hang or
/// leak whatever it is given; errors are the expected outcome.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// JSON-RPC framing (newline-delimited, bounded) and the dispatcher with the runtime's methods.
    case rpc
    /// A bundle's manifest and the integrator's entitlement policy.
    case manifest
    /// deckd's config file.
    case config
    /// The HTTP sink's request head.
    case httpHead = "http-head"
    /// JSON-RPC calls drawn from each method's schema and the edges of each type (SchemaFuzzer).
    case rpcSchema = "rpc-schema"
    /// The state file's document, read and applied at start.
    case state
    /// A plugin's templates and content items as the UI layer parses them.
    case template
    /// MPRIS method calls and property writes from any bus peer.
    case mpris
    /// What a plugin's host process sends the runtime: host calls, events, replies.
    case hostWire = "host-wire"
    /// Deck's JSON parser against jansson's on the same bytes: both refuse, or both read the same value.
    case json
    /// A music file's bytes through FFmpeg as the first-party apps read, decode, seek and measure it.
    case media
    /// A cover picture's bytes made smaller as the first-party apps make a large one (its header's
    /// size read; decoded, scaled, encoded as JPEG), whatever their size.
    case cover

    public func run(_ bytes: [UInt8]) {
        switch self {
        case .rpc: FuzzTarget.rpc(bytes)
        case .manifest:
            guard let json = try? JSONValue.parse(bytes, limits: JSONLimits(maxBytes: 64 * 1024, maxDepth: 8)) else { return }
            _ = try? PluginManifest(json: json)
            _ = try? EntitlementPolicy(json: json)
        case .config:
            guard let json = try? JSONValue.parse(bytes) else { return }
            var configuration = RuntimeConfiguration()
            _ = try? configuration.apply(json, from: "/nonexistent/fuzz/deck.json")
        case .httpHead:
            guard let length = HTTPRequestHead.headLength(in: bytes) else { return }
            _ = HTTPRequestHead.parse(bytes[..<length])
        case .rpcSchema:
            let runtime = FuzzRuntime.shared
            guard let line = runtime.schema.call(from: bytes) else { return }
            _ = runtime.dispatcher.handle(line, connection: RPCConnection { _ in })
            if let broken = SchemaFuzzer.brokenInvariant(of: runtime.runtime, dispatcher: runtime.dispatcher) { fatalError("after \(line): \(broken)") }
        case .state:
            guard let json = try? JSONValue.parse(bytes) else { return }
            FuzzRuntime.shared.runtime.state.restore(json)
        case .template:
            guard let text = String(validating: bytes, as: UTF8.self) else { return }
            let app = AppInterface(appID: "org.fuzz", entitlements: [.audio, .communication], maxImageBytes: 1 << 16)
            // Images 1 and 2 exist, so templates naming them are read through, and removing them asks what the stack shows.
            let images = [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1], [0xFF, 0xD8, 0xFF, 2]].compactMap { try? app.addImage($0) }
            for limits in FuzzTarget.displayLimits { _ = try? app.setRoot(text, limits: limits) }
            for id in images { try? app.removeImage(id) }
        case .mpris:
            FuzzTarget.mpris(bytes)
        case .json:
            if let disagreement = FuzzTarget.parsersDisagree(on: bytes) { fatalError(disagreement) }
        case .media:
            FuzzTarget.media(bytes)
        case .cover:
            _ = FuzzTarget.quieted
            _ = CoverImage.fitted(bytes)  // reads the size the header claims
            _ = CoverImage.fitted(bytes, over: 0)
        case .hostWire:
            guard var reader = try? WireReader(body: bytes) else { return }
            switch reader.kind {
            case .hostCall: _ = try? HostCall(from: &reader)
            case .event: _ = try? HostEvent(from: &reader)
            case .reply, .hostReply, .hello, .call:
                // A reply is read as what the runtime expects of each call: a status, a count, an item.
                _ = try? DeckStatus(from: &reader)
                _ = try? Int(from: &reader)
                _ = try? ContentItem(from: &reader)
            }
        }
    }

    /// The four display profiles to test, parked and driving.
    private static let displayLimits: [DisplayLimits] = [(748, 456), (800, 480), (768, 1024), (1920, 720)].flatMap { size in
        [false, true].map { driving in
            var profile = DisplayProfile()
            (profile.width, profile.height) = size
            profile.limitedUserInterfaces = driving ? [.lists, .keyboard] : []
            return DisplayLimits(profile: profile, entitlements: [.audio])
        }
    }

    /// A method and its arguments, or a property write, read from the bytes: the first byte picks
    /// the member, the next eight make an Int64 or a Double.
    private static func mpris(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        var bits: UInt64 = 0
        for byte in bytes.dropFirst().prefix(8) { bits = bits << 8 | UInt64(byte) }
        let members = ["Play", "Pause", "PlayPause", "Stop", "Next", "Previous", "Seek", "SetPosition", "Rate", "Shuffle", "LoopStatus"]
        let member = members[Int(first) % members.count]
        let number: DBusValue = first & 0x80 == 0 ? .int64(Int64(bitPattern: bits)) : .double(Double(bitPattern: bits))
        let text = String(decoding: bytes.dropFirst(9), as: UTF8.self)
        if ["Rate", "Shuffle", "LoopStatus"].contains(member) {
            _ = MPRISBridge.command(setting: member, to: first & 0x40 == 0 ? number : .string(text))
        } else {
            let arguments: [DBusValue] = member == "SetPosition" ? [.objectPath("/org/deck/track/1"), number] : [number, .string(text)]
            _ = MPRISBridge.decide(member, arguments, trackID: "/org/deck/track/1")
        }
    }

    /// How Deck's parser and jansson differ on `bytes`, or nil when both refuse them or both read the
    /// same value.
    public static func parsersDisagree(on bytes: [UInt8]) -> String? {
        let limits = JSONLimits(maxDepth: 1_000)
        let ours = Result { () throws(JSONParseError) in try JSONValue.parse(bytes, limits: limits) }
        let theirs = Result { () throws(JSONParseError) in try JSONValue.parseWithJansson(bytes, limits: limits) }
        switch (ours, theirs) {
        case (.success(let a), .success(let b)): return a == b ? nil : "the parsers read different values: \(a.encoded()) and \(b.encoded())"
        case (.failure, .failure): return nil
        case (.success(let a), .failure(let error)): return "Deck read \(a.encoded()) where jansson refused it: \(error)"
        case (.failure(let error), .success(let b)):
            // jansson skips a NUL byte straight after a number or literal (`[1\0]`), which RFC 8259
            // does not allow: that difference, and only it, is accepted.
            if bytes.contains(0), (try? JSONValue.parse(bytes.filter { $0 != 0 }, limits: limits)) == b { return nil }
            return "Deck refused (\(error)) what jansson read as \(b.encoded())"
        }
    }

    /// Feeds the bytes in two pieces, split where the first byte says, as reads would deliver them.
    private static func rpc(_ bytes: [UInt8]) {
        let runtime = FuzzRuntime.shared
        var framer = LineFramer(maxBytes: runtime.dispatcher.limits.maxMessageBytes)
        let connection = RPCConnection { _ in }
        let split = bytes.isEmpty ? 0 : Int(bytes[0]) % bytes.count
        for piece in [Array(bytes[..<split]), Array(bytes[split...])] {
            framer.feed(piece) { piece in
                if case .line(let line) = piece { _ = runtime.dispatcher.handle(line, connection: connection) }
                return true
            }
        }
    }
}
