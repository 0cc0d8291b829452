import Foundation
import KeychainStorage

/// Exclusive `flock`s on one file per access group, so that "check the key, then create" (and
/// update, and delete) is atomic across threads AND processes. Each acquisition opens its own
/// descriptor, so two threads of one process exclude each other like two processes do.
struct GroupLocks: Sendable {
    let directory: URL
    /// How long to wait for a lock another holder keeps (a hung or stopped process).
    let waitLimit: Double

    /// Runs `body` holding the locks of `groups` (taken in sorted order: no deadlock).
    func withLocks<T>(_ groups: [String], _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try ensureDirectory()
        var descriptors: [Int32] = []
        defer { for descriptor in descriptors { close(descriptor) } }
        for group in Set(groups).sorted() {
            descriptors.append(try acquire(group))
        }
        return try body()
    }

    /// The lock file of `group`: a readable prefix of the name, then a hash (names may hold any
    /// character, and two groups sharing a file would only serialise them more).
    func lockFile(for group: String) -> URL {
        let readable = String(group.unicodeScalars.prefix(40).map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-")
                ? Character(scalar) : "_"
        })
        return directory.appendingPathComponent("\(readable)-\(GLibValues.sha256Hex(group).prefix(32)).lock")
    }

    private func acquire(_ group: String) throws(StorageError) -> Int32 {
        let path = lockFile(for: group).path
        let descriptor: Int32
        switch try SafeFile.open(path, O_RDWR | O_CREAT) {
        case .regular(let opened):
            descriptor = opened
        case .notRegular(let kind):
            // Not moved aside: another process may be doing the same, and two fresh lock files
            // would let both into the group at once.
            throw .backend(
                domain: "shared-keychain.locks", code: 0,
                message: "the lock file \(path) of access group '\(group)' is \(kind), not a regular file: remove it (shared-keychain creates a new one; no item is lost)")
        case .missing:
            throw SafeFile.posixError(ENOENT, "cannot create the lock file \(path)")
        }
        // Poll with a growing back-off: a blocking flock cannot be bounded, and a holder that
        // stopped must not hang us forever.
        let deadline = Date().addingTimeInterval(waitLimit)
        var pause: UInt32 = 50
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw SafeFile.posixError(code, "cannot lock \(path)")
            }
            if Date() >= deadline {
                close(descriptor)
                throw .timedOut(operation: "lock access group '\(group)'", seconds: waitLimit)
            }
            usleep(pause)
            pause = min(pause * 2, 5_000)
        }
        return descriptor
    }

    private func ensureDirectory() throws(StorageError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .backend(
                domain: "shared-keychain.locks", code: 0,
                message: "cannot create the lock directory \(directory.path): \(error.localizedDescription)")
        }
    }
}
