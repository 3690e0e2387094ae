import DeckSDK

/// An app's root screen on the car's display: set when the display attaches, updated as the app
/// changes, the images it no longer names removed after each. A screen refused for what it holds
/// is logged once (until it is taken again or refused for another reason). Loop thread.
public final class AppScreen {
    private let host: DeckHost
    public let images: DeckImageCache
    private var rootID: UInt64?
    private var refusal: String?

    public init(host: DeckHost) {
        self.host = host
        images = DeckImageCache(host: host)
    }

    /// Sets `screen` as the root when the display attaches; forgets it when it goes.
    public func displayChanged(attached: Bool, _ screen: @autoclosure () -> DeckTemplate) {
        rootID = nil
        guard attached else { return }
        do throws(DeckError) {
            rootID = try host.setRoot(screen()).id
            taken()
        } catch {
            refused(error)
        }
    }

    /// Shows `screen` in place of the root's content, when a display is attached.
    public func refresh(_ screen: @autoclosure () -> DeckTemplate) {
        guard let rootID else { return }
        do throws(DeckError) {
            try host.update(rootID, screen())
            taken()
        } catch {
            refused(error)
        }
    }

    private func taken() {
        images.sweep()
        refusal = nil
    }

    /// Not now (`state`: the display went, the app is being unloaded) is no fault of the screen's:
    /// it is set again when the display is next attached.
    private func refused(_ error: DeckError) {
        guard error.code != .state, error.message != refusal else { return }
        refusal = error.message
        host.log(.warning, "the screen was refused: \(error.message)")
    }
}
