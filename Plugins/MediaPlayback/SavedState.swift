import DeckSDK
import FoundationEssentials
import Glibc

/// An app's own state in its data folder (favourites, where the driver was). One that is there
/// but cannot be read is set aside as PATH.unreadable and said, so the next save does not write
/// over what the driver kept without a word.
public enum SavedState {
    /// The value in `path`; nil when there is none yet, or when it could not be read (set aside).
    public static func load<Value: Decodable>(_ type: Value.Type, from path: String, maxBytes: Int, host: DeckHost) -> Value? {
        guard FileBytes.signature(path) != nil else { return nil }
        let bytes = FileBytes.read(path, maxBytes: maxBytes)
        if let bytes, let value = try? JSONDecoder().decode(Value.self, from: Data(bytes)) { return value }
        let aside = path + ".unreadable"
        let reason = bytes == nil ? "it cannot be read or is over \(maxBytes) bytes" : "it is not what this version writes"
        let moved = rename(path, aside) == 0
        host.log(.warning, "\(path) was not used (\(reason)); " + (moved ? "set aside as \(aside); " : "") + "starting afresh")
        return nil
    }
}
