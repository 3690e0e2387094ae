// One import for integrators embedding the runtime from Swift: `import DeckRuntime` brings every
// layer's public API, as swift-nio's umbrella module does.
@_exported import DeckAudio
@_exported import DeckBase
@_exported import DeckControl
@_exported import DeckIsolation
@_exported import DeckMedia
@_exported import DeckMPRIS
@_exported import DeckNowPlaying
@_exported import DeckPlugins
@_exported import DeckSession
@_exported import DeckStream
@_exported import DeckState
@_exported import DeckUI
