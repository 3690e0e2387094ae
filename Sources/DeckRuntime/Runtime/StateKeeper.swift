import DeckBase
import DeckNowPlaying
import DeckSession
import DeckState

/// What survives a restart (`state.path`): gathers each zone's last source, volume groups and
/// sinks chosen for app audio (by name) into the state file, debounced after each change and on
/// shutdown, and applies what the file held at start. The primary zone's state is the document's
/// top level, the other zones' are under `zones`, by id. Loop-thread-confined.
package final class StateKeeper {
    /// Where the state is kept; nil without `state.path`.
    let file: StateFile?
    /// The sinks each zone's app audio went to when the state was saved (by zone index), chosen
    /// again once the sinks open.
    private(set) var sinkSelections: [Int: [String]] = [:]
    private let zones: ZoneSet
    private let output: Output
    private let scheduler: any Scheduler
    private let logger: Logger

    init(file: StateFile?, zones: ZoneSet, output: Output, scheduler: any Scheduler, logger: Logger) {
        self.file = file
        self.zones = zones
        self.output = output
        self.scheduler = scheduler
        self.logger = logger
    }

    /// The document the state file holds.
    var document: JSONValue {
        var state = saved(zones.primary)
        for zone in zones.list.dropFirst() { state.zones[zone.id] = saved(zone) }
        return state.document
    }

    private func saved(_ zone: Zone) -> SavedState {
        let player = zone.player
        return SavedState(volumes: zone.focus.session.volume.groups.map { ($0.name, $0.index, $0.muted) }, sinks: output.selections[zone.index],
                          lastSource: player.center.lastSource(now: scheduler.now) ?? player.lastSource)
    }

    /// Schedules a save of the state, when there is a state file.
    func save() { file?.save(document) }

    /// Applies what the state file holds, when there is one.
    func restore() {
        if let saved = file?.load() { restore(saved) }
    }

    /// Takes a saved document. It is checked whole before any of it applies: one value out of
    /// range and the file is set aside (kept as `.corrupt-TIME`) and deckd starts fresh. Groups the
    /// config no longer has are skipped, and zones it no longer has; an index outside a group's
    /// range is clamped to it.
    package func restore(_ document: JSONValue) {
        let saved: SavedState
        do throws(StateFileError) {
            saved = try SavedState(document, maxQueueItems: zones.primary.player.center.limits.maxQueueItems)
        } catch {
            file?.setAside(because: error.description)
            return
        }
        restore(saved, in: zones.primary)
        for (id, state) in saved.zones.sorted(by: { $0.key < $1.key }) {
            guard let zone = zones.zone(id), zone.index > 0 else {
                logger.warning("state", "the saved state of zone \(id) is skipped: no such zone is configured")
                continue
            }
            restore(state, in: zone)
        }
    }

    private func restore(_ saved: SavedState, in zone: Zone) {
        do {
            try zone.focus.changeVolume { groups throws(VolumeError) in
                for volume in saved.volumes {
                    let name = volume.name
                    guard let group = groups.group(named: name) else { continue }
                    if let index = volume.index { try groups.set(name, index: min(max(index, group.lowestIndex), group.maxIndex)) }
                    if let muted = volume.muted, group.canSilence { try groups.mute(name, muted) }
                }
            }
        } catch {
            logger.warning("state", "saved volumes of zone \(zone.id) not restored: \(error)")
        }
        if let names = saved.sinks { sinkSelections[zone.index] = names }
        if let source = saved.lastSource {
            zone.player.lastSource = source
            logger.info("state", "last source\(zones.list.count > 1 ? " in zone \(zone.id)" : ""): \(source.pluginID) "
                        + "\(source.itemKey ?? "(default item)") at \(MediaTime(clamping: source.position).wholeSeconds) s")
        }
    }

    func close() { file?.close() }
}
