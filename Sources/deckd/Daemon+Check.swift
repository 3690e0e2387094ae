import DeckRuntime
import Glibc

extension Daemon {
    /// `--check-config`: the configuration read as a start reads it was valid (else the caller has
    /// said why, status 2); what it sums up to goes to standard output, as `nginx -t` says, with
    /// what a start would warn of that the configuration alone shows.
    static func check(_ configuration: RuntimeConfiguration, _ options: DaemonOptions) -> Int32 {
        let zones = configuration.effectiveZones
        let state = options.statePath == "none" ? "none" : configuration.state.path ?? "the default"
        let names = Set(configuration.sinks.compactMap { text in (try? SinkLabel.parse(text)).map { $0.label.name ?? text } })
        let notes = zones.flatMap { zone in
            zone.sinks.filter { !names.contains($0) }.map {
                "\n  note: zone \(zone.id) names the sink \($0), which no sink here is called: its audio goes nowhere until one is (sinks.add with name=)"
            }
        }
        print("deckd: the configuration is valid" + (options.configFile.map { " (\($0))" } ?? "") + ":\n"
              + "  plugins from \(configuration.pluginDirectories.map { access($0, F_OK) == 0 ? $0 : "\($0) (not there)" }.joined(separator: ", "))\n"
              + "  policy: \(configuration.policyPath ?? "none (every declared entitlement is granted)")\n"
              + "  sinks: \(configuration.sinks.isEmpty ? "none" : configuration.sinks.joined(separator: ", "))\n"
              + "  zones: \(zones.map(\.id).joined(separator: ", "))\n"
              + "  state: \(state)" + notes.joined())
        guard let reason = StandardDescriptors.flushOutput() else { return 0 }
        printError("deckd: cannot write the output: \(reason)")
        return 1
    }
}
