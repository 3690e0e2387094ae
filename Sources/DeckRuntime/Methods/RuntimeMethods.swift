import DeckBase
import DeckAudio
import DeckPlugins
import DeckControl

/// `runtime.*`: the runtime at a glance. Loop-thread-confined.
struct RuntimeMethods {
    let registry: PluginRegistry
    let zones: ZoneSet
    let output: Output

    var methods: [RPCMethod] {
        [RPCMethod("runtime.info", "Version, ABI, plugins, output and sinks at a glance.", result: RuntimeMethods.infoSchema) { [self] _ in
            info
        }]
    }

    /// Keys in byte order, as the answer is written: nothing to sort on every call.
    var info: JSONValue {
        let audio = output.engine, stats = audio.stats
        func total(_ counter: (StreamCounters) -> Int) -> JSONValue {
            .int(Int64(registry.reduce(0) { $0 + counter($1.streamCounters) }))
        }
        return [
            "abi": .string("\(PluginABI.major).\(PluginABI.minor)"),
            "apps": .int(Int64(registry.count)),
            "output": ["active": .bool(zones.isActive),
                       "clippedFrames": total { $0.clippedFrames.load(ordering: .relaxed) },
                       "droppedPackets": .int(Int64(stats.droppedPackets.load(ordering: .relaxed))),
                       "frames": .int(Int64(stats.frames.load(ordering: .relaxed))),
                       "invalidFrames": total { $0.invalidFrames.load(ordering: .relaxed) },
                       "lateEvents": .int(Int64(stats.lateEvents.load(ordering: .relaxed))),
                       "latenessMs": ["max": .double(Double(stats.lateness.maximum) / 1e6),
                                      "p50": .double(Double(stats.lateness.quantile(0.5)) / 1e6),
                                      "p99": .double(Double(stats.lateness.quantile(0.99)) / 1e6)],
                       "limitedSamples": .int(Int64(stats.limitedSamples.load(ordering: .relaxed))),
                       "pcmTapDroppedFrames": .int(Int64(audio.tapDroppedFrames)),
                       "running": .bool(audio.isRunning && !audio.isStalled),
                       "stalled": .bool(audio.isStalled),
                       "underrunFrames": total { $0.underrunFrames.load(ordering: .relaxed) }],
            "refused": .int(Int64(registry.loadFailures.count)),
            "sinks": .int(Int64(output.sinks.list.count)),
            "version": .string(DeckVersion.string),
        ]
    }

    static let infoSchema = Schema.object([
        "version": Schema.string, "abi": Schema.string, "apps": Schema.integer, "refused": Schema.integer, "sinks": Schema.integer,
        "output": Schema.object([
            "active": Schema.boolean, "running": Schema.boolean, "stalled": Schema.boolean, "pcmTapDroppedFrames": Schema.integer,
            "frames": Schema.integer, "lateEvents": Schema.integer,
            "droppedPackets": Schema.integer, "underrunFrames": Schema.integer, "invalidFrames": Schema.integer,
            "clippedFrames": Schema.integer, "limitedSamples": Schema.integer,
            "latenessMs": Schema.object(["p50": Schema.number, "p99": Schema.number, "max": Schema.number]),
        ]),
    ])
}
