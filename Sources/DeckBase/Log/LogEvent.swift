/// The events an integrator alerts on; each has a fixed journal `MESSAGE_ID` (as `journalctl MESSAGE_ID=…`
/// filters), which never changes once released.
public enum LogEvent: String, Sendable, CaseIterable {
    case pluginCrashed = "56a38b7d6c11446d91d196aeec3bccee"
    case pluginDisabled = "8475b368abb448249da146eb96f95788"
    case pluginHung = "79540bb5b5ba4e9da0b38918937a94bf"
    case sinkFailed = "e556c4a089c24d34a025dc86fe9c80fd"
    case stateSetAside = "f4fad23f1f3f41978e7fb44e21726f94"

    /// The 128-bit id in the journal's form: 32 lowercase hex digits.
    public var messageID: String { rawValue }
}
