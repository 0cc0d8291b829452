import Foundation
import KeychainStorage
import Logging
import SecretServiceStorage

/// Which Secret Service holds the device's keychain items: the CLI's `--keyring`, and
/// `SHARED_KEYCHAIN_KEYRING` for the SecItem API.
public enum KeyringKind: String, Sendable, CaseIterable {
    /// A gnome-keyring this tool runs itself on a private D-Bus session bus, in the state
    /// directory; started on first use. The default.
    case `private`
    /// The desktop session's own Secret Service (`DBUS_SESSION_BUS_ADDRESS`).
    case user
    /// This process's memory: gone when the process ends.
    case memory
}

extension Device {
    /// The state directory when none is given: `$SHARED_KEYCHAIN_STATE_DIR`, else
    /// `$XDG_STATE_HOME/shared-keychain`, else `~/.local/state/shared-keychain`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let directory = environment["SHARED_KEYCHAIN_STATE_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        if let stateHome = environment["XDG_STATE_HOME"], !stateHome.isEmpty {
            return URL(fileURLWithPath: stateHome, isDirectory: true).appendingPathComponent("shared-keychain", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state/shared-keychain", isDirectory: true)
    }

    /// The private keyring of this device's state directory.
    public func privateKeyring(logger: Logger) -> PrivateKeyring {
        PrivateKeyring(stateDirectory: stateDirectory, logger: logger)
    }

    /// Opens the device's keychain in `kind`, starting the private keyring when it is not
    /// running. `timeout` bounds each call to the Secret Service and each wait for a group's
    /// lock (a stopped or hung app holding it). The device's lock state protects items by class
    /// on the private keyring and in memory; the user's keyring has no device around it. In
    /// every kind the store carries the device's answer to access-control prompts
    /// (``authenticationProvider()``), so every keychain made on it, by any command or library,
    /// asks the device as `item get` does.
    ///
    /// - Throws: ``PrivateKeyringError`` when the private keyring cannot start,
    ///   ``StorageError`` when the store cannot be set up.
    public func openStore(_ kind: KeyringKind, timeout: Double = 5, logger: Logger) throws -> any ItemStore {
        // A damaged lock file is named now, rather than met later as "the device is locked".
        if kind != .user { _ = try lockState() }
        _ = try authenticationDecision()
        switch kind {
        case .memory:
            return InMemoryStore(deviceLock: lockProvider(), userAuthentication: authenticationProvider())
        case .user:
            var configuration = SecretServiceStore.Configuration(layout: .defaultCollection, timeout: timeout, lockTimeout: timeout)
            configuration.logger = logger
            configuration.userAuthentication = authenticationProvider()
            return try SecretServiceStore(configuration: configuration)
        case .private:
            let keyring = privateKeyring(logger: logger)
            try keyring.start()
            var configuration = try keyring.storeConfiguration(timeout: timeout, logger: logger)
            configuration.deviceLock = lockProvider()
            configuration.userAuthentication = authenticationProvider()
            return try SecretServiceStore(configuration: configuration)
        }
    }
}

/// What a device can do to its private keyring's daemon, as a crash, a hang or a debugger would.
public enum KeyringDaemonSignal: Sendable, Hashable, CaseIterable {
    /// SIGKILL: the daemon dies; the next call restarts it and reconnects.
    case kill
    /// SIGSTOP: calls time out until ``resume``.
    case stop
    /// SIGCONT to a stopped daemon.
    case resume

    /// The signal's number.
    public var number: Int32 {
        switch self {
        case .kill: SIGKILL
        case .stop: SIGSTOP
        case .resume: SIGCONT
        }
    }
}

extension Device {
    /// Sends `signal` to the private keyring's daemon; returns its pid.
    /// - Throws: ``DeviceError/keyringDaemonNotRunning`` when no daemon runs,
    ///   ``DeviceError/signalFailed(pid:signal:reason:)`` when `kill(2)` fails.
    @discardableResult
    public func signalKeyringDaemon(_ signal: KeyringDaemonSignal, logger: Logger) throws(DeviceError) -> Int32 {
        guard let pid = privateKeyring(logger: logger).status().pid else { throw .keyringDaemonNotRunning }
        guard kill(pid, signal.number) == 0 else {
            throw .signalFailed(pid: pid, signal: signal.number, reason: String(cString: strerror(errno)))
        }
        return pid
    }
}
