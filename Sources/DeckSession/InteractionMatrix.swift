import DeckBase

/// Holder context × request context → interaction. The default is Android Automotive's
/// CarAudioFocus matrix; the integrator replaces any cells (or all of them) in config:
///
///     "matrix": {"call": {"navigation": "reject"}}
public struct InteractionMatrix: Sendable, Equatable {
    private var cells: [FocusInteraction]

    public subscript(holder: AudioContext, request: AudioContext) -> FocusInteraction {
        get { cells[holder.index * AudioContext.count + request.index] }
        set { cells[holder.index * AudioContext.count + request.index] = newValue }
    }

    /// Android Automotive's defaults; rows are holders, columns requests, in `AudioContext` order.
    public static let automotive: InteractionMatrix = {
        let r = FocusInteraction.reject, e = FocusInteraction.exclusive, c = FocusInteraction.concurrent
        //             mus nav voi rng cal alm not sys emg saf veh ann
        let rows: [[FocusInteraction]] = [
            /* music */ [e, c, e, e, e, e, c, c, e, c, c, e],
            /* nav   */ [c, c, e, c, e, c, c, c, e, c, c, c],
            /* voice */ [c, r, c, e, e, r, r, r, e, c, c, r],
            /* ring  */ [r, c, c, c, c, r, r, c, e, c, c, r],
            /* call  */ [r, c, r, c, c, c, c, r, c, c, c, r],
            /* alarm */ [c, c, e, e, e, c, c, c, e, c, c, r],
            /* notif */ [c, c, e, e, e, c, c, c, e, c, c, c],
            /* sys   */ [c, c, e, e, e, c, c, c, e, c, c, c],
            /* emerg */ [r, r, r, r, c, r, r, r, c, c, r, r],
            /* safety*/ [c, c, c, c, c, c, c, c, c, c, c, c],
            /* veh   */ [c, c, c, c, c, c, c, c, e, c, c, c],
            /* annc  */ [e, c, e, e, e, e, c, c, e, c, c, e],
        ]
        return InteractionMatrix(cells: rows.flatMap { $0 })
    }()

    /// Applies `{"holder": {"request": "reject|exclusive|concurrent"}}` cells over this matrix.
    public func overriding(_ json: JSONValue) throws(SessionConfigurationError) -> InteractionMatrix {
        guard case .object(let rows) = json else { throw .invalid("session.matrix must be an object of holder contexts") }
        var matrix = self
        for (holderName, row) in rows {
            guard let holder = AudioContext(rawValue: holderName) else { throw .unknownContext(holderName) }
            guard case .object(let cells) = row else { throw .invalid("session.matrix.\(holderName) must be an object of request contexts") }
            for (requestName, value) in cells {
                guard let request = AudioContext(rawValue: requestName) else { throw .unknownContext(requestName) }
                guard let interaction = value.stringValue.flatMap(FocusInteraction.init(rawValue:)) else {
                    throw .invalid("session.matrix.\(holderName).\(requestName) must be reject, exclusive or concurrent")
                }
                matrix[holder, request] = interaction
            }
        }
        return matrix
    }
}

/// A session setting that cannot be used.
public enum SessionConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case unknownContext(String)
    case invalid(String)

    public var description: String {
        switch self {
        case .unknownContext(let name):
            "unknown audio context \"\(name)\"; known: \(AudioContext.allCases.map(\.rawValue).joined(separator: ", "))"
        case .invalid(let message): message
        }
    }
}
