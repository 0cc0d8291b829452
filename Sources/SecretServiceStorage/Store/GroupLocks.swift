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
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Self.posixError(errno, "cannot open the lock file \(path)")
        }
        // Poll with a growing back-off: a blocking flock cannot be bounded, and a holder that
        // stopped must not hang us forever.
        let deadline = Date().addingTimeInterval(waitLimit)
        var pause: UInt32 = 50
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(descriptor)
                throw Self.posixError(code, "cannot lock \(path)")
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

    private static func posixError(_ code: Int32, _ what: String) -> StorageError {
        .backend(domain: "posix", code: Int(code), message: "\(what): \(String(cString: strerror(code)))")
    }
}
