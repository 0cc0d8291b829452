import Foundation

/// Files only their owner can read (0600) in directories only their owner can enter (0700),
/// written whole: to a temporary file in the same directory, then renamed over the target, so
/// nobody ever reads half a file or a file that was briefly readable by others.
///
/// A path that exists as something other than what is expected (a symbolic link, a FIFO, a
/// device, a directory where a file goes) is refused and left as it is: writing through it
/// would block, or land somewhere the caller did not name.
public enum PrivateFile {
    /// Refuses `directory` when it exists and is not a directory (a symbolic link to one is
    /// refused too), and each of `files` in it when it exists and is not a regular file.
    /// Nothing is created.
    public static func checkWritable(directory: URL, files: [String]) throws(PrivateFileError) {
        guard let kind = kind(of: directory.path) else { return }
        guard kind == S_IFDIR else { throw .unexpectedKind(path: directory.path, found: describe(kind), expected: "a directory") }
        for file in files { try checkReplaceable(directory.appendingPathComponent(file)) }
    }

    /// Refuses `url` when it exists and is not a regular file (a symbolic link is refused).
    public static func checkReplaceable(_ url: URL) throws(PrivateFileError) {
        guard let kind = kind(of: url.path), kind != S_IFREG else { return }
        throw .unexpectedKind(path: url.path, found: describe(kind), expected: "a regular file")
    }

    /// Creates `directory` and its missing parents with mode 0700; an existing directory is used
    /// as it is.
    public static func makeDirectory(_ directory: URL) throws(PrivateFileError) {
        let path = directory.standardizedFileURL.path
        if let kind = kind(of: path) {
            guard kind == S_IFDIR else { throw .unexpectedKind(path: path, found: describe(kind), expected: "a directory") }
            return
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        if parent.path != path { try makeDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || (errno == EEXIST && kind(of: path) == S_IFDIR) else {
            throw .unwritable(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Writes `data` to `url` with mode 0600, replacing a regular file there atomically.
    public static func write(_ data: Data, to url: URL) throws(PrivateFileError) {
        try checkReplaceable(url)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        // Created 0600 from the start, never someone else's file (O_EXCL), never through a link.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .unwritable(path: url.path, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary.path)
            throw .unwritable(path: url.path, reason: error.localizedDescription)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .unwritable(path: url.path, reason: reason)
        }
    }

    /// The file type bits of `path` itself (a link is not followed), nil when nothing is there.
    private static func kind(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFREG: "a regular file"
        default: "a file of another kind"
        }
    }
}

/// A private file or directory that could not be written. Nothing was changed at the path.
public enum PrivateFileError: Error, Sendable, Equatable, StatusReporting, CustomStringConvertible {
    /// The path exists as something else than what would be written there.
    case unexpectedKind(path: String, found: String, expected: String)
    /// The system refused the write (permissions, a full disk, a missing parent).
    case unwritable(path: String, reason: String)

    /// errSecParam: the path given is not usable; another one is the fix.
    public var status: KeychainStatus { .param }

    /// What is at the path, or why it could not be written, and what to do.
    public var message: String {
        switch self {
        case .unexpectedKind(let path, let found, let expected):
            "\(path) is \(found), not \(expected); it was left as it is: remove it or give another path"
        case .unwritable(let path, let reason): "cannot write \(path): \(reason)"
        }
    }

    /// The message.
    public var description: String { message }
}
