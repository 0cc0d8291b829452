import Foundation
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

    /// Opens `path` with `flags` (plus no-follow, non-blocking, close-on-exec: see
    /// `PrivateFile.openRegular`); a file it creates is private to the user (0600).
    static func open(_ path: String, _ flags: Int32) throws(StorageError) -> Opened {
        do {
            guard let descriptor = try PrivateFile.openRegular(path, flags: flags) else { return .missing }
            return .regular(descriptor)
        } catch {
            switch error {
            case .unexpectedKind(_, let kind, _): return .notRegular(kind: kind)
            case .system(_, let reason): throw .backend(domain: "posix", code: 0, message: "cannot open \(path): \(reason)")
            }
        }
    }

    /// Whether something (of any kind, a dangling symlink included) sits at `path`.
    static func exists(_ path: String) -> Bool {
        PrivateFile.kind(at: path) != nil
    }

    /// Whether `path` is a regular file (not following a symlink).
    static func isRegular(_ path: String) -> Bool {
        PrivateFile.kind(at: path) == "a regular file"
    }

    static func posixError(_ code: Int32, _ what: String) -> StorageError {
        .backend(domain: "posix", code: Int(code), message: "\(what): \(String(cString: strerror(code)))")
    }
}
