import DeckBase
import DeckNowPlaying
import DeckSession

/// What survives a restart (`state.path`): the last source, the volume groups and the sinks
/// chosen for app audio (by name). Saved
/// debounced after each change and on shutdown; restored at start.
extension Runtime {
    /// The document the state file holds.
    var stateDocument: JSONValue {
        SavedState(volumes: session.volume.groups.map { ($0.name, $0.index, $0.muted) }, sinks: output.selection,
                   lastSource: player.center.lastSource(now: loop.now) ?? player.lastSource).document
    }

    /// Schedules a save of the state, when there is a state file.
    func saveState() { stateFile?.save(stateDocument) }

    /// Takes what the state file holds. The document is checked whole before any of it applies: one
    /// value out of range and the file is set aside (kept as `.corrupt-TIME`) and deckd starts fresh.
    /// Groups the config no longer has are skipped; an index outside a group's range is clamped to it.
    package func restoreState(_ document: JSONValue) {
        let saved: SavedState
        do throws(StateFileError) {
            saved = try SavedState(document, maxQueueItems: player.center.limits.maxQueueItems)
        } catch {
            stateFile?.setAside(because: error.description)
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
        if let names = saved.sinks { savedSinkSelection = names }
        if let source = saved.lastSource {
            player.lastSource = source
            logger.info("state", "last source: \(source.pluginID) \(source.itemKey ?? "(default item)") "
                        + "at \(MediaTime(clamping: source.position).wholeSeconds) s")
        }
    }
}
