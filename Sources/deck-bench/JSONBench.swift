import CJansson
import DeckRuntime
import Glibc

/// The JSON writer and reader on real answers (rpc.discover's and runtime.info's), against
/// jansson's own `json_dumps` and `json_loads` of the same documents in the same run.
struct JSONBench {
    var options: BenchOptions

    func run() throws {
        print("## json (encode and parse of real answers; jansson on the same documents as the reference)\n")
        let runtime = try Runtime(configuration: RuntimeConfiguration.benchDefault, logger: Logger(level: .error))
        defer { runtime.shutdown() }
        let dispatcher = runtime.makeDispatcher()
        let connection = RPCConnection { _ in }
        var documents: [(name: String, text: String)] = []
        for method in ["rpc.discover", "runtime.info"] {
            guard let answer = dispatcher.handle(#"{"jsonrpc":"2.0","method":"\#(method)","id":1}"#, connection: connection) else {
                throw BenchError("\(method) was not answered")
            }
            documents.append((method, answer))
        }
        print("| document | bytes | encode MB/s (Deck / jansson) | encode vs jansson | parse MB/s (Deck / jansson) | parse vs jansson |")
        print("|---|---|---|---|---|---|")
        for document in documents {
            let bytes = Array(document.text.utf8)
            let value = try JSONValue.parse(bytes)
            var error = json_error_t()
            guard let tree = json_loadb(document.text, bytes.count, 0, &error) else { throw BenchError("jansson refused \(document.name)") }
            defer { json_decref(tree) }
            let repeats = max(2_000, 20_000_000 / bytes.count)
            // Interleaved, best of five rounds each: the machine's noise falls on both.
            var ours = (encode: 0.0, parse: 0.0), theirs = (encode: 0.0, parse: 0.0)
            for _ in 0..<5 {
                ours.encode = max(ours.encode, JSONBench.rate(bytes.count, repeats) { _ = value.encoded() })
                theirs.encode = max(theirs.encode, JSONBench.rate(bytes.count, repeats) {
                    free(json_dumps(tree, Int(JSON_COMPACT | JSON_SORT_KEYS)))
                })
                ours.parse = max(ours.parse, JSONBench.rate(bytes.count, repeats) { _ = try? JSONValue.parse(bytes) })
                theirs.parse = max(theirs.parse, JSONBench.rate(bytes.count, repeats) {
                    var error = json_error_t()
                    json_decref(json_loadb(document.text, bytes.count, Int(JSON_REJECT_DUPLICATES), &error))
                })
            }
            print("| \(document.name) answer | \(bytes.count) | \(Int(ours.encode)) / \(Int(theirs.encode)) | "
                + "\(String(format2: ours.encode / theirs.encode))× | \(Int(ours.parse)) / \(Int(theirs.parse)) | \(String(format2: ours.parse / theirs.parse))× |")
        }
        print("\nGoals: encode at least 300 MB/s, parse at least 200 MB/s. jansson sorts keys here too (JSON_SORT_KEYS), as Deck's answers are sorted.\n")
    }

    /// MB/s when `body` handles a document of `size` bytes `repeats` times.
    private static func rate(_ size: Int, _ repeats: Int, _ body: () -> Void) -> Double {
        let measured = Measurement.of { for _ in 0..<repeats { body() } }
        return Double(size * repeats) / measured.wall / 1e6
    }
}
