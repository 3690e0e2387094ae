import DeckBase
import Glibc

/// How the session behaves, from config's "session" object:
///
///     {"duckDb": -14, "duckRampMs": 500, "restoreRampMs": 500, "idleTimeoutMs": 5000,
///      "starvationMs": 30000, "alwaysActive": false, "matrix": {"call": {"navigation": "reject"}}}
public struct SessionPolicy: Sendable, Equatable {
    public var matrix = InteractionMatrix.automotive
    /// Among contexts playing at once, who ducks whom.
    public var ducking = DuckingTable.automotive
    /// Level of a ducked stream, in dB (negative).
    public var duckDecibels = -14.0
    public var duckRampMilliseconds = 500.0
    public var restoreRampMilliseconds = 500.0
    /// A paused stream fades out this fast instead of stopping on a click.
    public var pauseRampMilliseconds = 20.0
    /// The volume groups and their starting indexes.
    public var volumeGroups = VolumeGroups.automotive
    /// A volume change reaches the streams over this long.
    public var volumeRampMilliseconds = 100.0
    /// The output deactivates this long after the last stream closed and focus was abandoned; 0 never.
    public var idleTimeoutMilliseconds: UInt64 = 5_000
    /// A holder rendering only silence this long, unpaused, is reported as starving the others.
    public var starvationMilliseconds: UInt64 = 30_000
    /// Keep the output running from start to stop, focus or not (a continuous broadcast).
    public var alwaysActive = false
    /// Distinct integrator names (`session.request`) holding or awaiting focus at once.
    public var maxIntegratorOwners = 16
    /// Whether navigation prompts play during a call (ducking it) or are rejected, the choice
    /// AAOS leaves to the driver.
    public var rejectsNavigationDuringCall = false {
        didSet { matrix[.call, .navigation] = rejectsNavigationDuringCall ? .reject : .concurrent }
    }

    public init() {}

    public var duckGain: Float { Float(pow(10, duckDecibels / 20)) }

    public mutating func apply(_ json: JSONValue) throws(SessionConfigurationError) {
        guard case .object(let members) = json else { throw .invalid("\"session\" must be an object") }
        for (key, value) in members {
            func number() throws(SessionConfigurationError) -> Double {
                switch value {
                case .int(let n): return Double(n)
                case .double(let n): return n
                default: throw .invalid("session.\(key) must be a number")
                }
            }
            func milliseconds() throws(SessionConfigurationError) -> Double {
                let value = try number()
                guard value >= 0, value <= 3_600_000 else { throw .invalid("session.\(key) must be 0 to 3600000 ms") }
                return value
            }
            func wholeMilliseconds() throws(SessionConfigurationError) -> UInt64 {
                let value = try milliseconds()
                guard value == value.rounded() else { throw .invalid("session.\(key) must be a whole number of milliseconds, not \(value)") }
                return UInt64(value)
            }
            switch key {
            case "duckDb":
                let decibels = try number()
                guard decibels <= 0, decibels >= -96 else { throw .invalid("session.duckDb must be -96 to 0 dB") }
                duckDecibels = decibels
            case "duckRampMs": duckRampMilliseconds = try milliseconds()
            case "restoreRampMs": restoreRampMilliseconds = try milliseconds()
            case "idleTimeoutMs": idleTimeoutMilliseconds = try wholeMilliseconds()
            case "starvationMs": starvationMilliseconds = try wholeMilliseconds()
            case "maxIntegratorOwners":
                let count = try number()
                guard count == count.rounded(), (1...256).contains(count) else {
                    throw .invalid("session.maxIntegratorOwners must be a whole number from 1 to 256")
                }
                maxIntegratorOwners = Int(count)
            case "alwaysActive":
                guard let flag = value.boolValue else { throw .invalid("session.alwaysActive must be true or false") }
                alwaysActive = flag
            case "navigationDuringCall":
                switch value.stringValue {
                case "play": rejectsNavigationDuringCall = false
                case "reject": rejectsNavigationDuringCall = true
                default: throw .invalid("session.navigationDuringCall must be play or reject")
                }
            case "volumeGroups": volumeGroups = try VolumeGroups(json: value)
            case "matrix": matrix = try matrix.overriding(value)
            case "ducking": ducking = try ducking.overriding(value)
            default:
                throw .invalid("unknown key \"session.\(key)\" (known: duckDb, duckRampMs, restoreRampMs, idleTimeoutMs, "
                               + "starvationMs, alwaysActive, maxIntegratorOwners, navigationDuringCall, volumeGroups, matrix, ducking)")
            }
        }
    }
}
