import SharedKeychain

/// Why a load run could not be set up or finished.
public enum LoadError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    case invalidMix(String)
    case invalidConfiguration(String)
    case workerFailed(app: Int, reason: String)

    public var description: String {
        switch self {
        case .invalidMix(let reason): "invalid --mix: \(reason)"
        case .invalidConfiguration(let reason): reason
        case .workerFailed(let app, let reason): "simulated app \(app) failed: \(reason)"
        }
    }

    public var status: KeychainStatus {
        switch self {
        case .invalidMix, .invalidConfiguration: .param
        case .workerFailed: .io
        }
    }

    public var message: String { description }
}
