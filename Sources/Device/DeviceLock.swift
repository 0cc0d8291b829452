import Foundation
import KeychainStorage
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

    /// Records `state`, replacing the file atomically (0600, in a 0700 directory).
    public func setLockState(_ state: DeviceLockState) throws(DeviceError) {
        try lockStateFile.write(state)
    }

    /// What stores ask before each operation: the file's state, read again only when it
    /// changed (one `stat` per call). An unreadable file counts as locked, never as unlocked;
    /// ``openStore(_:timeout:logger:)`` checks it first, so a command names the bad file.
    public func lockProvider() -> DeviceLockProvider {
        lockStateFile.provider(unreadable: DeviceLockState(locked: true, unlockedSinceBoot: false))
    }
}
