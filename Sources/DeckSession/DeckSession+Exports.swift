// Focus requests, results and changes are the ones plugin.h numbers (DeckABI).
@_exported import DeckABI
