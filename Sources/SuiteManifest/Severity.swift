/// How much a finding matters: an error breaks sign-in or sharing at runtime, a warning is a
/// likely problem, info is worth knowing.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case error
    case warning
    case info

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        }
    }

    /// Errors sort first.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}
