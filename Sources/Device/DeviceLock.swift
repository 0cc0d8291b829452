import Foundation
import KeychainStorage
import Logging
import SecretServiceStorage
import SharedKeychain

/// The device's lock, `<state>/device/lock.json`: whether the device is locked and whether it
/// was unlocked since it last booted. It belongs to the device, not to a process: `device lock`
/// in one process holds for every other until `device unlock`. A device with no file is booted
/// and unlocked.
extension Device {
    private var lockStateFile: DeviceStateFile<DeviceLockState> {
        DeviceStateFile(
            url: directory.appendingPathComponent("lock.json"), kind: "a lock state",
            repair: .setLockState, absent: .unlocked)
    }

    /// The lock state now. A file that is not a lock state is an error naming it, never taken
    /// for a state: fix or remove it (`device unlock` writes a fresh one).
    public func lockState() throws(DeviceError) -> DeviceLockState {
        try lockStateFile.read()
    }

    /// Records `state`, replacing the file atomically (0600, in a 0700 directory), and posts the
    /// protected-data event the change makes (``ProtectedDataEvent``) for every watcher.
    public func setLockState(_ state: DeviceLockState) throws(DeviceError) {
        // An unreadable old state is taken as locked: unlocking it posts didBecomeAvailable.
        let previous = (try? lockState()) ?? DeviceLockState(locked: true, unlockedSinceBoot: false)
        try lockStateFile.write(state)
        if let event = ProtectedDataEvent(from: previous, to: state) {
            try protectedDataJournal.post(ProtectedDataNotification(event: event, time: Date(), state: state))
        }
    }

    /// What stores ask before each operation: the file's state, read again only when it
    /// changed (one `stat` per call). An unreadable file counts as locked, never as unlocked;
    /// ``openStore(_:timeout:logger:)`` checks it first, so a command names the bad file.
    public func lockProvider() -> DeviceLockProvider {
        lockStateFile.provider(unreadable: DeviceLockState(locked: true, unlockedSinceBoot: false))
    }

    /// Locks the device, as its side button does: whenUnlocked items are out of reach until
    /// ``unlock()``; whether it was unlocked since boot stays. Returns the new state. The
    /// keyring, timeout and logger are as for ``setLock(_:keyring:timeout:logger:)``.
    @discardableResult
    public func lock(keyring: KeyringKind, timeout: Double = 5, logger: Logger) throws -> DeviceLockState {
        var state = try lockState()
        state.locked = true
        try setLock(state, keyring: keyring, timeout: timeout, logger: logger)
        return state
    }

    /// Unlocks the device, as its passcode does: every item is in reach again, and
    /// afterFirstUnlock items stay so until the next reboot. Returns the new state.
    @discardableResult
    public func unlock() throws(DeviceError) -> DeviceLockState {
        let state = DeviceLockState(locked: false, unlockedSinceBoot: true)
        try setLockState(state)
        return state
    }

    /// Reboots the device: it comes back locked and not unlocked since boot, so afterFirstUnlock
    /// items are out of reach too until ``unlock()``. Returns the new state.
    @discardableResult
    public func reboot(keyring: KeyringKind, timeout: Double = 5, logger: Logger) throws -> DeviceLockState {
        let state = DeviceLockState(locked: true, unlockedSinceBoot: false)
        try setLock(state, keyring: keyring, timeout: timeout, logger: logger)
        return state
    }

    /// Puts the device in `state` whole: the lock file every process reads, and, on the private
    /// keyring while its daemon runs, the shards of the classes `state` locks, locked in
    /// gnome-keyring itself so that no other client reads them either.
    /// - Parameters:
    ///   - keyring: where the device's items live; only the private keyring has shards to lock.
    ///   - timeout: bounds each call to the daemon.
    public func setLock(_ state: DeviceLockState, keyring: KeyringKind, timeout: Double = 5, logger: Logger) throws {
        try setLockState(state)
        let classes = state.lockedClasses
        guard keyring == .private, !classes.isEmpty else { return }
        let daemon = privateKeyring(logger: logger)
        guard daemon.status().running else { return }
        var configuration = try daemon.storeConfiguration(timeout: timeout, logger: logger)
        configuration.deviceLock = lockProvider()
        try SecretServiceStore(configuration: configuration).lockShards(of: classes)
    }
}
