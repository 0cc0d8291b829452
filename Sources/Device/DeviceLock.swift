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

    /// The lock state now. A file that is not a lock state is an error naming it, never taken
    /// for a state: fix or remove it (`device unlock` writes a fresh one).
    public func lockState() throws(DeviceError) -> DeviceLockState {
        let data: Data
        do throws(PrivateFile.Failure) {
            guard let read = try PrivateFile.read(lockStateFile, maxBytes: 64 << 10) else { return .unlocked }
            data = read
        } catch {
            throw .unreadable(path: lockStateFile.path, reason: "\(error.description) Remove it and run `shared-keychain device unlock` (or `device lock`) to write a fresh one")
        }
        do {
            return try JSONDecoder().decode(DeviceLockState.self, from: data)
        } catch {
            throw .unreadable(
                path: lockStateFile.path,
                reason: "it is not a lock state (\(InputValidation.describe(decodingError: error))); remove it and run `shared-keychain device unlock` (or `device lock`) to write a fresh one")
        }
    }

    /// Records `state`, replacing the file atomically (0600, in a 0700 directory).
    public func setLockState(_ state: DeviceLockState) throws(DeviceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try PrivateFile.write(try encoder.encode(state), to: lockStateFile)
        } catch let error as PrivateFile.Failure {
            throw .unreadable(path: lockStateFile.path, reason: "cannot write the lock state: \(error.description)")
        } catch {
            throw .unreadable(path: lockStateFile.path, reason: "cannot encode the lock state: \(error)")
        }
    }

    /// What stores ask before each operation: the file's state, read again only when it
    /// changed (one `stat` per call). An unreadable file counts as locked, never as unlocked;
    /// ``openStore(_:timeout:logger:)`` checks it first, so a command names the bad file.
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
