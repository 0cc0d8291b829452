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
