import Foundation

/// The files the tool writes and the state files it reads back, handled so that a path someone
/// else controls can do no harm.
///
/// Run as root with `--output /dev/zero`, Foundation's atomic write replaced the machine's device
/// node with a file of secrets. So an output path that exists and is not a regular file (a
/// device, FIFO, socket, directory or symbolic link) is refused and left untouched; outputs are
/// written to a temporary file in the same directory, created owner-only (0600, `O_EXCL`), and
/// renamed over the target, so readers see the old file or the new one, never half of one.
/// State files are opened with `O_NOFOLLOW | O_NONBLOCK` and checked to be regular files before
/// they are read, so a symlink is never followed and a FIFO never hangs a command.
public enum PrivateFile {
    /// Why a file could not be written or read. Messages name the path and say what to do.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Something other than what would be written is at the path (`expected`: a regular
        /// file, a directory); it was left as it is.
        case unexpectedKind(path: String, kind: String, expected: String)
        /// The system refused (permissions, no space, a missing directory...).
        case system(path: String, reason: String)

        public var description: String {
            switch self {
            case .unexpectedKind(let path, let kind, let expected):
                "'\(path)' is \(kind), not \(expected); it was left untouched. Remove it or name another path."
            case .system(let path, let reason):
                "cannot use '\(path)': \(reason)"
            }
        }
    }

    /// What is at `path` without following a final symlink: nil when nothing is there, else a
    /// phrase for messages (`a regular file`, `a FIFO`, `a symbolic link`, ...).
    public static func kind(at path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return describe(mode: info.st_mode)
    }

    /// `a FIFO`, `a device`, ... for a `st_mode`.
    static func describe(mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: "a regular file"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "a special file"
        }
    }

    /// Refuses `url` when something other than a regular file is there; nothing there is fine.
    public static func checkReplaceable(_ url: URL) throws(Failure) {
        if let kind = kind(at: url.path), kind != "a regular file" {
            throw .unexpectedKind(path: url.path, kind: kind, expected: "a regular file")
        }
    }

    /// Refuses `directory` when it exists and is not a directory, and each of `files` in it
    /// that exists and is not a regular file: checked before a run that writes there, so
    /// nothing is done for output that could not be written. Nothing is created.
    public static func checkWritable(directory: URL, files: [String]) throws(Failure) {
        if let kind = kind(at: directory.path) {
            guard kind == "a directory" else { throw .unexpectedKind(path: directory.path, kind: kind, expected: "a directory") }
        }
        for file in files { try checkReplaceable(directory.appendingPathComponent(file)) }
    }

    /// Writes `data` to `url`: owner-only from the first byte, synced, then renamed over `url`.
    /// An existing `url` that is not a regular file is refused and left untouched. The parent
    /// directory is created (0700) when missing.
    public static func write(_ data: Data, to url: URL) throws(Failure) {
        try write(to: url) { append in try append(data) }
    }

    /// Writes to `url` what `produce` hands to its `append`, chunk by chunk, as
    /// ``write(_:to:)`` writes one `Data`: a big output never has to be held whole. When
    /// `produce` fails, nothing replaces `url` and the temporary file is removed.
    ///
    /// - Parameters:
    ///   - url: the file to write.
    ///   - produce: hands the contents, in order, to its `append`.
    public static func write(to url: URL, producing produce: (_ append: (Data) throws -> Void) throws -> Void) throws(Failure) {
        try checkReplaceable(url)
        let directory = url.deletingLastPathComponent()
        try createDirectory(directory)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .system(path: url.path, reason: String(cString: strerror(errno))) }
        var failure: String?
        do {
            try produce { data in
                if let reason = writeAll(data, to: descriptor) { throw Failure.system(path: url.path, reason: reason) }
            }
        } catch let error as Failure {
            if case .system(_, let reason) = error { failure = reason } else { failure = error.description }
        } catch {
            failure = "\(error)"
        }
        if failure == nil, fsync(descriptor) != 0 { failure = String(cString: strerror(errno)) }
        close(descriptor)
        if failure == nil, rename(temporary, url.path) != 0 { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(temporary)
            throw .system(path: url.path, reason: failure)
        }
    }

    /// Writes all of `data` to `descriptor`; the system's reason when it cannot.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { bytes in
            var written = 0
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress.map { $0 + written }, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                written += count
            }
            return nil
        }
    }

    /// Creates `url` and its missing parents, each 0700. An existing directory is kept as it is
    /// (it may be shared on purpose); anything else at the path is refused.
    public static func createDirectory(_ url: URL) throws(Failure) {
        if let kind = kind(at: url.path) {
            guard kind == "a directory" else {
                // A symlink to a directory is how some systems lay out /tmp: follow only to check.
                var info = stat()
                if kind == "a symbolic link", stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { return }
                throw .unexpectedKind(path: url.path, kind: kind, expected: "a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .system(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// Opens a state file as a regular file, never through a symlink and never blocking on a
    /// FIFO: `O_NOFOLLOW | O_NONBLOCK`, then `fstat`. Returns the descriptor (blocking again),
    /// or nil when the file does not exist (and `flags` do not create it).
    public static func openRegular(_ path: String, flags: Int32, mode: mode_t = 0o600) throws(Failure) -> Int32? {
        let descriptor = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            // ELOOP: the last component is a symlink. ENXIO: a FIFO opened for writing with no reader.
            if code == ELOOP || code == ENXIO || code == EISDIR, let kind = kind(at: path) {
                throw .unexpectedKind(path: path, kind: kind, expected: "a regular file")
            }
            throw .system(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .system(path: path, reason: reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .unexpectedKind(path: path, kind: describe(mode: info.st_mode), expected: "a regular file")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return descriptor
    }

    /// The whole of the state file at `url`, or nil when there is none. Refuses a file larger
    /// than `maxBytes` before reading it, and anything that is not a regular file.
    public static func read(_ url: URL, maxBytes: Int = 64 << 20) throws(Failure) -> Data? {
        guard let descriptor = try openRegular(url.path, flags: O_RDONLY) else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        if fstat(descriptor, &info) == 0, Int(info.st_size) > maxBytes {
            throw .system(path: url.path, reason: "it is \(info.st_size) bytes; the limit is \(maxBytes)")
        }
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .system(path: url.path, reason: (error as NSError).localizedDescription)
        }
    }
}
