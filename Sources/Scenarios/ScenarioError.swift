import SharedKeychain
import SuiteManifest

/// Why a scenario could not be read or run. Bad input is errSecParam; an app process that
/// failed is errSecIO.
public enum ScenarioError: Error, Sendable, Equatable, CustomStringConvertible, StatusReporting {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a scenario: bad syntax, an unknown key, a wrong type; `at` is the place
    /// (`step 4, expect.count`), when known.
    case malformed(path: String, at: String?, reason: String)
    /// A step refers to something that does not exist or cannot work (an unknown app, a job
    /// not started); `step` is 1-based.
    case invalidStep(path: String, step: Int, reason: String)
    /// The scenario's suite manifest cannot be used.
    case suite(SuiteManifestError)
    /// A simulated app could not be started, or went away during the run.
    case appFailed(app: String, reason: String)

    /// What is wrong and where.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the scenario \(path): \(reason)"
        case .malformed(let path, let at, let reason): "\(path): " + (at.map { "\($0): " } ?? "") + reason
        case .invalidStep(let path, let step, let reason): "\(path): step \(step): \(reason)"
        case .suite(let error): error.description
        case .appFailed(let app, let reason): "simulated app \(app) failed: \(reason)"
        }
    }

    /// The description.
    public var message: String { description }

    /// errSecParam for bad input, errSecIO for a failed app.
    public var status: KeychainStatus {
        switch self {
        case .unreadable, .malformed, .invalidStep, .suite: .param
        case .appFailed: .io
        }
    }
}
