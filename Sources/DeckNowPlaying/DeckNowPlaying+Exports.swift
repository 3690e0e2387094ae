// Playback states, modes and remote commands are the ones plugin.h numbers (DeckABI).
@_exported import DeckABI
