import Foundation
import Glibc
import KeychainStorage

/// Opening the store's own files (group locks, shard indexes) so that whatever sits in their
/// place cannot hurt: a symlink is never followed (it could send writes anywhere), a FIFO is
/// never waited on (an open or read would hang every command on the group), and only a regular
/// file is used. Anything else is reported as what it is, for a message a person can act on.
enum SafeFile {
    enum Opened {
        case regular(Int32)
        case missing
        /// Something other than a regular file: `kind` says what ("a directory", "a FIFO").
        case notRegular(kind: String)
    }

    /// Opens `path` with `flags` (plus no-follow, non-blocking, close-on-exec); a file it
    /// creates is private to the user (0600).
    static func open(_ path: String, _ flags: Int32) throws(StorageError) -> Opened {
        let descriptor = Glibc.open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        if descriptor < 0 {
            let code = errno
            switch code {
            case ENOENT: return .missing
            case ELOOP: return .notRegular(kind: "a symbolic link")
            case EISDIR: return .notRegular(kind: "a directory")
            case ENXIO: return .notRegular(kind: "a FIFO or socket")
            default: throw posixError(code, "cannot open \(path)")
            }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw posixError(code, "cannot inspect \(path)")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return .notRegular(kind: kind(of: status.st_mode))
        }
        return .regular(descriptor)
    }

    /// Whether something (of any kind, a dangling symlink included) sits at `path`.
    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Whether `path` is a regular file (not following a symlink).
    static func isRegular(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    private static func kind(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    static func posixError(_ code: Int32, _ what: String) -> StorageError {
        .backend(domain: "posix", code: Int(code), message: "\(what): \(String(cString: strerror(code)))")
    }
}
