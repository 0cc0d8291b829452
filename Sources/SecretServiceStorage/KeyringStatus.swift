/// What `PrivateKeyring.status()` reports (and `keyring status` prints as JSON).
public struct KeyringStatus: Codable, Sendable, Equatable {
    /// Whether the bus answers and gnome-keyring-daemon owns `org.freedesktop.secrets` on it.
    public var running: Bool
    /// gnome-keyring-daemon's process id, when running.
    public var pid: Int32?
    /// The private dbus-daemon's process id, when it runs.
    public var busPid: Int32?
    /// The D-Bus address, so other tools can reach the keyring:
    /// `DBUS_SESSION_BUS_ADDRESS=<bus> secret-tool search access-group <group>`.
    public var bus: String
    /// Where the keyring keeps its files.
    public var stateDirectory: String

    /// A status as reported; see the properties.
    public init(running: Bool, pid: Int32?, busPid: Int32?, bus: String, stateDirectory: String) {
        self.running = running
        self.pid = pid
        self.busPid = busPid
        self.bus = bus
        self.stateDirectory = stateDirectory
    }
}
