import DeckBase
import DeckNowPlaying
import DeckSession
import DeckState

/// What survives a restart (`state.path`): gathers the last source, the volume groups and the
/// sinks chosen for app audio (by name) into the state file, debounced after each change and on
/// shutdown, and applies what the file held at start. Loop-thread-confined.
package final class StateKeeper {
    /// Where the state is kept; nil without `state.path`.
    let file: StateFile?
    /// The sinks app audio went to when the state was saved, chosen again once the sinks open.
    private(set) var sinkSelection: [String]?
    private let focus: FocusCoordinator
    private let output: Output
    private let player: PlayerCoordinator
    private let scheduler: any Scheduler
    private let logger: Logger

    init(file: StateFile?, focus: FocusCoordinator, output: Output, player: PlayerCoordinator, scheduler: any Scheduler, logger: Logger) {
        self.file = file
        self.focus = focus
        self.output = output
        self.player = player
        self.scheduler = scheduler
        self.logger = logger
    }

    /// The document the state file holds.
    var document: JSONValue {
        SavedState(volumes: focus.session.volume.groups.map { ($0.name, $0.index, $0.muted) }, sinks: output.selection,
                   lastSource: player.center.lastSource(now: scheduler.now) ?? player.lastSource).document
    }

    /// Schedules a save of the state, when there is a state file.
    func save() { file?.save(document) }

    /// Applies what the state file holds, when there is one.
    func restore() {
        if let saved = file?.load() { restore(saved) }
    }

    /// Takes a saved document. It is checked whole before any of it applies: one value out of
    /// range and the file is set aside (kept as `.corrupt-TIME`) and deckd starts fresh. Groups the
    /// config no longer has are skipped; an index outside a group's range is clamped to it.
    package func restore(_ document: JSONValue) {
        let saved: SavedState
        do throws(StateFileError) {
            saved = try SavedState(document, maxQueueItems: player.center.limits.maxQueueItems)
        } catch {
            file?.setAside(because: error.description)
            return
        }
        do {
            try focus.changeVolume { groups throws(VolumeError) in
                for volume in saved.volumes {
                    let name = volume.name
                    guard let group = groups.group(named: name) else { continue }
                    if let index = volume.index { try groups.set(name, index: min(max(index, group.lowestIndex), group.maxIndex)) }
                    if let muted = volume.muted, group.canSilence { try groups.mute(name, muted) }
                }
            }
        } catch {
            logger.warning("state", "saved volumes not restored: \(error)")
        }
        if let names = saved.sinks { sinkSelection = names }
        if let source = saved.lastSource {
            player.lastSource = source
            logger.info("state", "last source: \(source.pluginID) \(source.itemKey ?? "(default item)") "
                        + "at \(MediaTime(clamping: source.position).wholeSeconds) s")
        }
    }

    func close() { file?.close() }
}
