import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization

/// One JSON state file of the device (`lock.json`, `authentication.json`): read with
/// `PrivateFile.read` (a file that is not one is an error naming it and how to repair it, never
/// taken for a state), written whole, 0600, through `PrivateFile`; no file is `absent`.
struct DeviceStateFile<Value: Codable & Sendable>: Sendable {
    let url: URL
    /// What the file holds, with its article: `a lock state`.
    let kind: String
    /// How to write a fresh one (unlock the device).
    let repair: Remedy
    /// The state of a device without the file.
    let absent: Value

    func read() throws(DeviceError) -> Value {
        let data: Data
        do throws(PrivateFile.Failure) {
            guard let read = try PrivateFile.read(url, maxBytes: 64 << 10) else { return absent }
            data = read
        } catch {
            throw .unreadable(path: url.path, reason: "\(error.description) Remove it and \(repair) to write a fresh one")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .unreadable(
                path: url.path,
                reason: "it is not \(kind) (\(InputValidation.describe(decodingError: error))); remove it and \(repair) to write a fresh one")
        }
    }

    /// Records `value`, replacing the file atomically (0600, in a 0700 directory).
    func write(_ value: Value) throws(DeviceError) {
        let noun = "the " + kind.split(separator: " ").dropFirst().joined(separator: " ")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try PrivateFile.write(try encoder.encode(value), to: url)
        } catch let error as PrivateFile.Failure {
            throw .unreadable(path: url.path, reason: "cannot write \(noun): \(error.description)")
        } catch {
            throw .unreadable(path: url.path, reason: "cannot encode \(noun): \(error)")
        }
    }

    /// A provider of the file's state for stores and keychains asking before each operation:
    /// read again only when the file changed (one `stat` per call); `unreadable` stands for a
    /// file that cannot be read (never the permissive state).
    func provider(unreadable: Value) -> @Sendable () -> Value {
        let cache = StateFileCache(file: self, unreadable: unreadable)
        return { cache.current() }
    }
}

/// The last state read and the file's modification time, size and inode when it was read.
private final class StateFileCache<Value: Codable & Sendable>: Sendable {
    private struct Seen: Sendable {
        var stamp: [Int]
        var value: Value
    }

    let file: DeviceStateFile<Value>
    let unreadable: Value
    private let seen = Mutex<Seen?>(nil)

    init(file: DeviceStateFile<Value>, unreadable: Value) {
        self.file = file
        self.unreadable = unreadable
    }

    func current() -> Value {
        var info = stat()
        guard stat(file.url.path, &info) == 0 else { return file.absent }
        let stamp = [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size), Int(info.st_ino)]
        if let cached = seen.withLock({ $0 }), cached.stamp == stamp { return cached.value }
        let value = (try? file.read()) ?? unreadable
        seen.withLock { $0 = Seen(stamp: stamp, value: value) }
        return value
    }
}
