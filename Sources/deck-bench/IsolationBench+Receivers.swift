import DeckBase
import DeckStream
import Glibc

extension IsolationBench {
    /// What an RTP sink to this machine pays to ask, at each packet, which socket would receive it
    /// (plugins may not record the car): the same sink and receiver with the runtime's gate set
    /// (a kernel lookup a packet; the receiver, not a plugin's, allowed once) and unset; and a sink
    /// to an interface's address, which also asks whether this machine's addresses changed. Interleaved.
    func receivers() throws {
        let count = 2_000, rounds = 5
        let loop = try EventLoop()
        let receiver = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(receiver) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: 0), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) == 0 && getsockname(receiver, $0, &length) == 0 }
        }
        guard receiver >= 0, bound else { throw BenchError("no UDP receiver: \(String(cString: strerror(errno)))") }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let context = SinkContext(loop: loop, logger: Logger(level: .error), preSkip: 312, frameSize: try FrameSize(milliseconds: 20),
                                  encoder: EncoderSettings())
        var cases: [(name: String, sink: any Sink, checked: Bool)] = []
        defer { cases.forEach { $0.sink.close() } }
        let loopback = try SinkURI.rtp(host: "127.0.0.1", port: port, payloadType: 96, sdpPath: nil).makeSink(context)
        cases += [("unset (reference: nothing asked)", loopback, false), ("set: the receiving socket asked of the kernel each packet", loopback, true)]
        if let interface = SocketAddress.interfaceAddresses().first(where: { !$0.isIPv6 && !$0.isLoopback })?.host {
            let sink = try SinkURI.rtp(host: interface, port: port, payloadType: 96, sdpPath: nil).makeSink(context)
            cases.append(("set, to an interface's address (\(interface)): this machine's address changes asked too", sink, true))
        }
        let packet = EncodedPacket(bytes: [UInt8](repeating: 0xfc, count: 320), sampleIndex: 0, samples: 960, isLast: false, finalGranule: nil, preSkip: 312)
        var drained = [UInt8](repeating: 0, count: 2048), sampleIndex: Int64 = 0
        var times = [[Double]](repeating: [], count: cases.count)
        for _ in 0..<rounds {
            for (index, item) in cases.enumerated() {
                context.listeners.receiverRefusal = item.checked ? { _, _ in nil } : nil
                var next = packet
                for _ in 0..<count {
                    next.sampleIndex = sampleIndex
                    sampleIndex += 960
                    let started = Subprocess.now()
                    item.sink.deliver(next)
                    times[index].append(Double(Subprocess.now() - started) / 1e3)
                    while recv(receiver, &drained, drained.count, Int32(MSG_DONTWAIT)) > 0 {}
                }
            }
        }
        print("### An RTP sink to this machine (\(rounds) × \(count) packets of 320 bytes each, interleaved)\n")
        print("| the runtime's gate | deliver, p50 (µs) | p99 (µs) |")
        print("|---|---|---|")
        for (item, samples) in zip(cases, times) {
            print("| \(item.name) | \(String(format1: percentile(samples, 50))) | \(String(format1: percentile(samples, 99))) |")
        }
        print("")
    }
}
