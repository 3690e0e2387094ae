// A plugin written with DeckSDK sees the same Swift mirrors of plugin.h's values as the runtime.
@_exported import DeckABI
