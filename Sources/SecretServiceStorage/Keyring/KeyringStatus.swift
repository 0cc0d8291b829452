import KeychainStorage

/// What `PrivateKeyring.status()` reports (and `keyring status` prints as JSON).
public struct KeyringStatus: Codable, Sendable, Equatable {
    /// The keyring's condition, as one word for scripts.
    public enum State: String, Codable, Sendable {
        /// The daemon runs and answered a call.
        case running
        /// The daemon's process exists and owns the Secret Service name, but did not answer in
        /// time (stopped with SIGSTOP, or hung): every call would time out.
        case notResponding = "not responding"
        /// No daemon.
        case stopped
    }

    /// Whether gnome-keyring-daemon's process exists and owns `org.freedesktop.secrets`.
    public var running: Bool
    /// Whether it answered a call within the probe's timeout (false when not running).
    public var responding: Bool
    /// gnome-keyring-daemon's process id, when running.
    public var pid: Int32?
    /// The private dbus-daemon's process id, when it runs.
    public var busPid: Int32?
    /// The D-Bus address, so other tools can reach the keyring:
    /// `DBUS_SESSION_BUS_ADDRESS=<bus> secret-tool search access-group <group>`.
    public var bus: String
    /// Where the keyring keeps its files.
    public var stateDirectory: String
    /// `running`, `not responding` or `stopped`.
    public var state: State

    /// A status as reported; see the properties.
    public init(running: Bool, responding: Bool, pid: Int32?, busPid: Int32?, bus: String, stateDirectory: String) {
        self.running = running
        self.responding = running && responding
        self.pid = pid
        self.busPid = busPid
        self.bus = bus
        self.stateDirectory = stateDirectory
        state = !running ? .stopped : responding ? .running : .notResponding
    }
}

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
            "cannot reach the keyring's D-Bus at \(address): \(reason); \(Remedy.restartKeyring)"
        }
    }
}
