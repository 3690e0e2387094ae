public enum DeckSDKPlaceholder {}
