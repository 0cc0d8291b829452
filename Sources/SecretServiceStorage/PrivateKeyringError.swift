/// Why the private keyring could not be started, inspected or stopped. Messages say what to do
/// and never contain the keyring password.
public enum PrivateKeyringError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A program the keyring needs is not installed.
    case missingExecutable(name: String, debianPackage: String)
    /// The state directory cannot be created or used.
    case stateDirectory(path: String, reason: String)
    /// A program failed; `output` is what it printed on stderr.
    case processFailed(command: String, status: Int32, output: String)
    /// Something did not happen in time.
    case timedOut(what: String, seconds: Double)
    /// The private bus cannot be reached.
    case busUnreachable(address: String, reason: String)

    /// What went wrong and what to run or install.
    public var description: String {
        switch self {
        case .missingExecutable(let name, let package):
            "`\(name)` was not found (looked in PATH, /usr/bin, /bin): install it with `sudo apt-get install \(package)`"
        case .stateDirectory(let path, let reason):
            "cannot use the keyring state directory \(path): \(reason)"
        case .processFailed(let command, let status, let output):
            "`\(command)` failed with status \(status)" + (output.isEmpty ? "" : ": \(output)")
        case .timedOut(let what, let seconds):
            "\(what) did not happen within \(seconds) s"
        case .busUnreachable(let address, let reason):
            "cannot reach the keyring's D-Bus at \(address): \(reason); run `shared-keychain keyring stop` then `shared-keychain keyring start`"
        }
    }
}
