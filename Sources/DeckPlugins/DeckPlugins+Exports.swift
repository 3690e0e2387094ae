// The plugin subsystem speaks plugin.h's values as DeckABI mirrors them.
@_exported import DeckABI
