import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization

/// The device's lock, `<state>/device/lock.json`: whether the device is locked and whether it
/// was unlocked since it last booted. It belongs to the device, not to a process: `device lock`
/// in one process holds for every other until `device unlock`. A device with no file is booted
/// and unlocked.
extension Device {
    private var lockStateFile: URL { directory.appendingPathComponent("lock.json") }

    /// The lock state now.
    public func lockState() throws(DeviceError) -> DeviceLockState {
        guard FileManager.default.fileExists(atPath: lockStateFile.path) else { return .unlocked }
        do {
            let data = try InputValidation.readDocument(at: lockStateFile, field: "the device's lock state")
            return try JSONDecoder().decode(DeviceLockState.self, from: data)
        } catch {
            throw .unreadable(path: lockStateFile.path, reason: "not a lock state (\(error))")
        }
    }

    /// Records `state`, replacing the file atomically.
    public func setLockState(_ state: DeviceLockState) throws(DeviceError) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(state).write(to: lockStateFile, options: .atomic)
        } catch {
            throw .unreadable(path: lockStateFile.path, reason: "cannot write the lock state: \(error.localizedDescription)")
        }
    }

    /// What stores ask before each operation: the file's state, read again only when it
    /// changed (one `stat` per call). An unreadable file counts as locked, never as unlocked.
    public func lockProvider() -> DeviceLockProvider {
        let cache = LockStateCache(device: self)
        return { cache.current() }
    }
}

/// The last lock state read and the file's modification time and size when it was read.
private final class LockStateCache: Sendable {
    private struct Seen {
        var stamp: [Int]
        var state: DeviceLockState
    }

    let device: Device
    private let seen = Mutex<Seen?>(nil)

    init(device: Device) {
        self.device = device
    }

    func current() -> DeviceLockState {
        let path = device.directory.appendingPathComponent("lock.json").path
        var info = stat()
        guard stat(path, &info) == 0 else { return .unlocked }
        let stamp = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size), Int(info.st_ino)]
        if let cached = seen.withLock({ $0 }), cached.stamp == stamp { return cached.state }
        let state = (try? device.lockState()) ?? DeviceLockState(locked: true, unlockedSinceBoot: false)
        seen.withLock { $0 = Seen(stamp: stamp, state: state) }
        return state
    }
}
