import DeckSDK
