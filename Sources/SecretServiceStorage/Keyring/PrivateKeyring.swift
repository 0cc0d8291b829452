import Foundation
import KeychainStorage
import Logging

/// A Secret Service this tool runs itself: a private `dbus-daemon` and a `gnome-keyring-daemon`
/// whose files live in one state directory, unlocked with a random password kept there (0600).
/// Items persist across restarts of the daemons.
///
/// Layout of the state directory (0700):
/// `keyring.json` (what runs: pids and bus address), `password` (0600), `bus.conf` (the bus's
/// configuration: it listens on `bus` and activates nothing), `bus` (the socket, unless the path
/// is too long for a unix socket: then a short directory under /tmp named by the state
/// directory's hash), `data/` (XDG_DATA_HOME: the keyring files), `run/` (XDG_RUNTIME_DIR),
/// `locks/` (the stores' group locks).
///
/// Every method may be called from any thread and any process; `start` and `stop` serialise
/// on a lock file in the state directory.
public final class PrivateKeyring: Sendable {
    /// The well-known name of a Secret Service on D-Bus.
    public static let secretServiceName = "org.freedesktop.secrets"

    /// Where the keyring keeps its files (see the type's documentation).
    public let stateDirectory: URL
    /// How long to wait for each daemon to start or stop.
    public let startTimeout: Double
    let logger: Logger

    /// A keyring in `stateDirectory` (created 0700 on first use); nothing starts until ``start()``.
    public init(
        stateDirectory: URL,
        startTimeout: Double = 10,
        logger: Logger = Logger(label: "shared-keychain.private-keyring")
    ) {
        self.stateDirectory = stateDirectory.standardizedFileURL
        self.startTimeout = startTimeout
        self.logger = logger
    }

    // MARK: What stores need

    /// The D-Bus address of the keyring's bus; stable for this state directory.
    public var busAddress: String { "unix:path=\(socketPath)" }

    /// Where the daemon keeps this keyring's files (``SecretServiceStore/Configuration/keyringFiles``).
    public var keyringFiles: URL { dataDirectory.appendingPathComponent("keyrings") }

    /// Where stores sharing this keyring keep their group locks.
    public var lockDirectory: URL { stateDirectory.appendingPathComponent("locks") }

    /// The keyring password, created on first use: also the master password of per-group
    /// collections. Never log it.
    public func masterPassword() throws(PrivateKeyringError) -> String {
        try prepareDirectories()
        return try loadOrCreatePassword()
    }

    /// A store configuration for this keyring: its bus, its lock directory, and either one
    /// collection per access group (the default) or the keyring's default collection.
    /// `timeout` bounds each call to the daemon and each wait for a group's lock.
    public func storeConfiguration(
        collectionPerGroup: Bool = true, timeout: Double = 5, logger: Logger? = nil
    ) throws(PrivateKeyringError) -> SecretServiceStore.Configuration {
        let layout: SecretServiceStore.Layout =
            collectionPerGroup ? .collectionPerGroup(masterPassword: try masterPassword()) : .defaultCollection
        var configuration = SecretServiceStore.Configuration(
            busAddress: busAddress, layout: layout, lockDirectory: lockDirectory, timeout: timeout, lockTimeout: timeout)
        if let logger { configuration.logger = logger }
        configuration.keyringFiles = keyringFiles
        configuration.restartService = { [self] in _ = try start() }
        return configuration
    }

    // MARK: Lifecycle

    /// Starts the keyring unless it runs: reuses a live bus and daemon, restarts the daemon on
    /// a live bus, or starts both. Idempotent. The status returned does not ask the daemon
    /// whether it answers (``status()`` does).
    @discardableResult
    public func start() throws(PrivateKeyringError) -> KeyringStatus {
        try prepareDirectories()
        return try withStateLock { () throws(PrivateKeyringError) -> KeyringStatus in
            try checkStateFile()
            let password = try loadOrCreatePassword()
            var busPid: Int32
            var probe: BusProbe
            // What this start began, ended again if it fails: nothing it starts may outlive it
            // unrecorded (the daemon is found by its bus; see ``stopLeftovers(only:)``).
            var started: Set<String> = []
            if let saved = readState(), ProcessTable.isRunning(saved.busPid, named: "dbus-daemon"),
                let live = try? BusProbe(address: saved.bus, timeout: 2)
            {
                busPid = saved.busPid
                probe = live
                if let pid = probe.processID(of: Self.secretServiceName),
                    ProcessTable.isRunning(pid, named: "gnome-keyring-daemon")
                {
                    // No call to the daemon here: a hung one would cost every command the probe's
                    // wait on top of its own --timeout. The command's first call meets it instead.
                    return status(saved: KeyringState(bus: saved.bus, busPid: busPid, keyringPid: pid), probing: false)
                }
                // A daemon that runs without owning the name (stuck starting) would race the new one.
                if let old = saved.keyringPid {
                    ProcessTable.terminate(old, named: "gnome-keyring-daemon", seconds: startTimeout)
                }
                logger.debug("gnome-keyring-daemon is gone; starting it again on the running bus")
            } else {
                if let saved = readState() {
                    // Whatever is left of an earlier run lost its bus: clear it away.
                    if let pid = saved.keyringPid {
                        ProcessTable.terminate(pid, named: "gnome-keyring-daemon", seconds: startTimeout)
                    }
                    ProcessTable.terminate(saved.busPid, named: "dbus-daemon", seconds: startTimeout)
                }
                // And daemons of an earlier start that no keyring.json recorded.
                stopLeftovers()
                busPid = try startBus()
                started.insert("dbus-daemon")
                do throws(PrivateKeyringError) { probe = try connectToNewBus() } catch {
                    stopLeftovers(only: started)
                    throw error
                }
            }
            started.insert("gnome-keyring-daemon")
            let state: KeyringState
            do throws(PrivateKeyringError) {
                try startDaemon(password: password, probe: probe)
                state = KeyringState(bus: probe.address, busPid: busPid, keyringPid: probe.processID(of: Self.secretServiceName))
                try writeState(state)
            } catch {
                stopLeftovers(only: started)
                throw error
            }
            logger.debug(
                "private keyring started",
                metadata: ["bus": "\(state.bus)", "pid": "\(state.keyringPid.map(String.init) ?? "?")"])
            return status(saved: state, probing: false)
        }
    }

    /// Stops the daemon and the bus, waiting (bounded) for both to exit. Stopping a stopped
    /// keyring does nothing. Items stay in the state directory.
    @discardableResult
    public func stop() throws(PrivateKeyringError) -> KeyringStatus {
        guard FileManager.default.fileExists(atPath: stateDirectory.path) else { return status() }
        return try withStateLock { () throws(PrivateKeyringError) -> KeyringStatus in
            if let saved = readState() {
                var keyringPid = saved.keyringPid
                if ProcessTable.isRunning(saved.busPid, named: "dbus-daemon"),
                    let probe = try? BusProbe(address: saved.bus, timeout: 2),
                    let pid = probe.processID(of: Self.secretServiceName)
                {
                    keyringPid = pid
                }
                if let keyringPid {
                    ProcessTable.terminate(keyringPid, named: "gnome-keyring-daemon", seconds: startTimeout)
                }
                ProcessTable.terminate(saved.busPid, named: "dbus-daemon", seconds: startTimeout)
                try? FileManager.default.removeItem(at: stateFile)
                logger.debug("private keyring stopped", metadata: ["bus": "\(saved.bus)"])
            }
            // Whatever keyring.json does not record (a start that could not write it).
            stopLeftovers()
            unlink(socketPath)
            if socketPath.hasPrefix(shortSocketDirectory) { rmdir(shortSocketDirectory) }
            return status(saved: nil)
        }
    }

    /// Whether the keyring runs, with its pids and bus address.
    public func status() -> KeyringStatus {
        status(saved: readState())
    }

    /// - Parameter probing: ask the daemon whether it answers (up to 2 s when it is hung);
    ///   without the probe a running daemon counts as responding.
    private func status(saved: KeyringState?, probing: Bool = true) -> KeyringStatus {
        guard let saved, ProcessTable.isRunning(saved.busPid, named: "dbus-daemon") else {
            return KeyringStatus(
                running: false, responding: false, pid: nil, busPid: nil, bus: saved?.bus ?? busAddress,
                stateDirectory: stateDirectory.path)
        }
        var pid: Int32?
        var responding = false
        if let probe = try? BusProbe(address: saved.bus, timeout: 2),
            let owner = probe.processID(of: Self.secretServiceName),
            ProcessTable.isRunning(owner, named: "gnome-keyring-daemon")
        {
            pid = owner
            responding = probing ? probe.answers(Self.secretServiceName) : true
        }
        return KeyringStatus(
            running: pid != nil, responding: responding, pid: pid, busPid: saved.busPid, bus: saved.bus,
            stateDirectory: stateDirectory.path)
    }

    // MARK: Starting the daemons

    private func startBus() throws(PrivateKeyringError) -> Int32 {
        let executable = try ProcessRunner.find("dbus-daemon", debianPackage: "dbus-daemon")
        try prepareSocketDirectory()
        unlink(socketPath)  // a stale socket of a dead bus
        try write(busConfiguration(), to: configFile)
        let result = try ProcessRunner.run(
            executable, ["--config-file=\(configFile.path)", "--fork", "--print-pid"], timeout: startTimeout)
        guard result.status == 0, let pid = result.output.split(whereSeparator: \.isWhitespace).first.flatMap({ Int32($0) })
        else {
            throw .processFailed(command: "dbus-daemon --config-file=\(configFile.path) --fork", status: result.status, output: result.errors)
        }
        return pid
    }

    /// The bus answers once it forked, but give it a bounded moment in case it does not yet.
    private func connectToNewBus() throws(PrivateKeyringError) -> BusProbe {
        let deadline = Date().addingTimeInterval(startTimeout)
        var pause: UInt32 = 2_000
        while true {
            do {
                return try BusProbe(address: busAddress, timeout: startTimeout)
            } catch {
                if Date() >= deadline { throw error }
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
    }

    private func startDaemon(password: String, probe: BusProbe) throws(PrivateKeyringError) {
        let executable = try ProcessRunner.find("gnome-keyring-daemon", debianPackage: "gnome-keyring")
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["XDG_DATA_HOME"] = dataDirectory.path
        environment["XDG_RUNTIME_DIR"] = runtimeDirectory.path
        // Never attach to a desktop keyring this process may know about.
        environment.removeValue(forKey: "GNOME_KEYRING_CONTROL")
        let arguments = ["--unlock", "--components=secrets", "--daemonize"]
        // --unlock reads the password from stdin up to EOF.
        let result = try ProcessRunner.run(
            executable, arguments, environment: environment, input: Data(password.utf8), timeout: startTimeout)
        guard result.status == 0 else {
            throw .processFailed(
                command: "gnome-keyring-daemon " + arguments.joined(separator: " "), status: result.status,
                output: result.errors)
        }
        try probe.waitForOwner(of: Self.secretServiceName, seconds: startTimeout)
    }

    // MARK: Files

    var stateFile: URL { stateDirectory.appendingPathComponent("keyring.json") }
    private var passwordFile: URL { stateDirectory.appendingPathComponent("password") }
    var configFile: URL { stateDirectory.appendingPathComponent("bus.conf") }
    private var lockFile: URL { stateDirectory.appendingPathComponent("keyring.lock") }
    var dataDirectory: URL { stateDirectory.appendingPathComponent("data") }
    private var runtimeDirectory: URL { stateDirectory.appendingPathComponent("run") }
    var servicesDirectory: URL { stateDirectory.appendingPathComponent("bus-services") }

    /// `<state>/bus`, or `/tmp/shared-keychain-<uid>-<hash>/bus` when that is longer than a unix
    /// socket path may be (107 bytes).
    var socketPath: String {
        let preferred = stateDirectory.appendingPathComponent("bus").path
        if preferred.utf8.count <= 107 { return preferred }
        return "\(shortSocketDirectory)/bus"
    }

    private var shortSocketDirectory: String {
        "/tmp/shared-keychain-\(getuid())-\(GLibValues.sha256Hex(stateDirectory.path).prefix(16))"
    }

    private func prepareDirectories() throws(PrivateKeyringError) {
        let path = stateDirectory.path
        var info = stat()
        if lstat(path, &info) == 0 {
            // Somebody's existing directory: use it only if it is already private to us. Its
            // mode is never changed: it may be a directory the user shares on purpose.
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw .stateDirectory(path: path, reason: "it exists and is not a directory")
            }
            guard info.st_uid == getuid() else {
                throw .stateDirectory(path: path, reason: "it belongs to another user")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw .stateDirectory(
                    path: path,
                    reason: "others may read it (mode \(String(info.st_mode & 0o777, radix: 8))); name a new directory, which is created private, or make this one private yourself (chmod 700)")
            }
            guard access(path, W_OK | X_OK) == 0 else {
                throw .stateDirectory(path: path, reason: "it is not writable")
            }
        }
        do {
            try FileManager.default.createDirectory(
                at: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            for directory in [dataDirectory, runtimeDirectory, servicesDirectory, lockDirectory] {
                try FileManager.default.createDirectory(
                    at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw .stateDirectory(path: path, reason: error.localizedDescription)
        }
    }

    /// The fallback socket directory must be a real directory of ours, not someone's symlink.
    private func prepareSocketDirectory() throws(PrivateKeyringError) {
        guard socketPath.hasPrefix(shortSocketDirectory) else { return }
        let directory = shortSocketDirectory
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .stateDirectory(path: directory, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(),
            info.st_mode & 0o077 == 0
        else {
            throw .stateDirectory(path: directory, reason: "not a private directory owned by this user")
        }
    }

    private func loadOrCreatePassword() throws(PrivateKeyringError) -> String {
        let existing: Data?
        do { existing = try PrivateFile.read(passwordFile, maxBytes: 4096) } catch {
            throw .stateDirectory(path: passwordFile.path, reason: error.description)
        }
        if let existing {
            chmod(passwordFile.path, 0o600)
            let password = String(decoding: existing, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !password.isEmpty { return password }
        }
        guard let random = FileHandle(forReadingAtPath: "/dev/urandom") else {
            throw .stateDirectory(path: passwordFile.path, reason: "cannot read /dev/urandom")
        }
        defer { try? random.close() }
        guard let bytes = try? random.read(upToCount: 32), bytes.count == 32 else {
            throw .stateDirectory(path: passwordFile.path, reason: "cannot read 32 random bytes from /dev/urandom")
        }
        let password = bytes.base64EncodedString()
        try write(password, to: passwordFile)
        return password
    }

    /// Writes a state file atomically, 0600 from the start (never through a link or a FIFO).
    private func write(_ text: String, to url: URL) throws(PrivateKeyringError) {
        do { try PrivateFile.write(Data(text.utf8), to: url) } catch {
            throw .stateDirectory(path: url.path, reason: error.description)
        }
    }

    private func readState() -> KeyringState? {
        guard let data = try? PrivateFile.read(stateFile, maxBytes: 1 << 20) else { return nil }
        return try? JSONDecoder().decode(KeyringState.self, from: data)
    }

    private func writeState(_ state: KeyringState) throws(PrivateKeyringError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(state) else {
            throw .stateDirectory(path: stateFile.path, reason: "cannot encode the keyring state")
        }
        try write(String(decoding: data, as: UTF8.self), to: stateFile)
    }

    /// Runs `body` holding an exclusive lock on `keyring.lock` (bounded wait).
    private func withStateLock<T>(_ body: () throws(PrivateKeyringError) -> T) throws(PrivateKeyringError) -> T {
        let descriptor: Int32
        do throws(PrivateFile.Failure) {
            guard let opened = try PrivateFile.openRegular(lockFile.path, flags: O_RDWR | O_CREAT) else {
                throw .system(path: lockFile.path, reason: "it vanished while being created")
            }
            descriptor = opened
        } catch {
            throw .stateDirectory(path: lockFile.path, reason: error.description)
        }
        defer { close(descriptor) }
        let limit = startTimeout * 4
        let deadline = Date().addingTimeInterval(limit)
        var pause: UInt32 = 1_000
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if Date() >= deadline { throw .timedOut(what: "another start or stop of this keyring finishing", seconds: limit) }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        return try body()
    }
}

/// What `keyring.json` records about the running daemons.
struct KeyringState: Codable, Sendable {
    var bus: String
    var busPid: Int32
    var keyringPid: Int32?
}
