/// The runtime's version, reported to plugins (`host->version`) and clients.
public enum DeckVersion {
    public static let string = "0.1.0"
}
