import DeckBase
@testable import DeckRuntime

/// What the `*.get` methods answer, read straight from the runtime's parts.
extension Runtime {
    /// `ui.get` (of `app`, else the foreground app).
    func uiState(app: String? = nil) -> JSONValue { UIMethods.state(interface, zone: zones.primary, scheduler: scheduler, app: app) }
    /// `session.get`.
    var sessionState: JSONValue { SessionMethods.state(focus) }
    /// `runtime.info`.
    var info: JSONValue { RuntimeMethods(registry: plugins, zones: zones, output: output).info }
}
