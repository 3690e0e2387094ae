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
        var clipped = 0, invalid = 0, underrun = 0  // the apps' counters, in one pass
        for plugin in registry {
            clipped &+= plugin.streamCounters.clippedFrames.load(ordering: .relaxed)
            invalid &+= plugin.streamCounters.invalidFrames.load(ordering: .relaxed)
            underrun &+= plugin.streamCounters.underrunFrames.load(ordering: .relaxed)
        }
        return .object(JSONObject(inKeyOrder: [
            .init("abi", .string(RuntimeMethods.abi)),
            .init("apps", .int(Int64(registry.count))),
            .init("output", .object(JSONObject(inKeyOrder: [
                .init("active", .bool(zones.isActive)),
                .init("clippedFrames", .int(Int64(clipped))),
                .init("droppedPackets", .int(Int64(stats.droppedPackets.load(ordering: .relaxed)))),
                .init("frames", .int(Int64(stats.frames.load(ordering: .relaxed)))),
                .init("invalidFrames", .int(Int64(invalid))),
                .init("lateEvents", .int(Int64(stats.lateEvents.load(ordering: .relaxed)))),
                .init("latenessMs", .object(JSONObject(inKeyOrder: [
                    .init("max", .double(Double(stats.lateness.maximum) / 1e6)),
                    .init("p50", .double(Double(stats.lateness.quantile(0.5)) / 1e6)),
                    .init("p99", .double(Double(stats.lateness.quantile(0.99)) / 1e6)),
                ]))),
                .init("limitedSamples", .int(Int64(stats.limitedSamples.load(ordering: .relaxed)))),
                .init("pcmTapDroppedFrames", .int(Int64(audio.tapDroppedFrames))),
                .init("running", .bool(audio.isRunning && !audio.isStalled)),
                .init("stalled", .bool(audio.isStalled)),
                .init("underrunFrames", .int(Int64(underrun))),
            ]))),
            .init("refused", .int(Int64(registry.loadFailures.count))),
            .init("sinks", .int(Int64(output.sinks.count))),
            .init("version", .string(DeckVersion.string)),
        ]))
    }

    private static let abi = "\(PluginABI.major).\(PluginABI.minor)"

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
