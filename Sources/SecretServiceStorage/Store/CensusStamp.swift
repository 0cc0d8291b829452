import Foundation
import KeychainStorage

/// What the last census of a group's shard index saw, kept beside the index (`<group>.census`)
/// so that a new process need not count every shard again: the daemon run, the index file's
/// header and length, and the state (inode, size, change times) of each of the group's keyring
/// files. gnome-keyring rewrites a collection's file on every change to it, so while none of
/// those moved, nor the index, the keyring still holds what the census counted.
///
/// A stamp is a hint like the index: anything that does not match exactly (another daemon run,
/// a file added, removed, rewritten or replaced, a record appended or a torn line, a stamp that
/// cannot be read) costs a census, never trust. It is written after a census that agreed with
/// the index, after a rebuild, and by a writer at the end of its hold of the group's lock (its
/// own changes moved the files), only while the index is confirmed in this store.
struct CensusStamp: Equatable {
    /// One keyring file's state: a rewrite (gnome-keyring writes a new file and renames it over
    /// the old one) changes its inode and change time.
    struct FileMark: Equatable {
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
    }

    static let header = "shared-keychain census 1"

    /// The daemon run (its unique bus name): after a restart collections load locked, and a
    /// locked collection's items are left out of searches until a census unlocks it.
    var epoch: String
    /// The index file's header line and length when the census confirmed it.
    var indexHeader: String
    var indexLength: Int
    /// The group's keyring files, by name.
    var files: [String: FileMark]

    /// `<lock file>.census`, beside the group's index.
    static func file(for group: String, locks: GroupLocks) -> URL {
        locks.lockFile(for: group).deletingPathExtension().appendingPathExtension("census")
    }

    /// As text: the header, the epoch, the index's header and length, then a line per file
    /// (`name inode size modified changed`; file names of shards hold no spaces). Text, not
    /// JSON: a writer renews the stamp at the end of every change.
    var text: String {
        var text = "\(Self.header)\n\(epoch)\n\(indexHeader)\n\(indexLength)\n"
        text.reserveCapacity(text.utf8.count + files.count * 96)
        for (name, mark) in files.sorted(by: { $0.key < $1.key }) {
            for field in [name, String(mark.inode), String(mark.size), String(mark.modified)] {
                text += field
                text += " "
            }
            text += String(mark.changed)
            text += "\n"
        }
        return text
    }

    init(epoch: String, indexHeader: String, indexLength: Int, files: [String: FileMark]) {
        self.epoch = epoch
        self.indexHeader = indexHeader
        self.indexLength = indexLength
        self.files = files
    }

    /// A stamp from its text; nil for anything else (a torn or edited file).
    init?(text: Substring) {
        // By bytes, not characters: every new process reads the stamp, a line per shard.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Substring.init)
        guard lines.count >= 5, lines[0] == Self.header, lines.last == "", let length = Int(lines[3]) else { return nil }
        var files: [String: FileMark] = [:]
        files.reserveCapacity(lines.count - 5)
        for line in lines[4..<(lines.count - 1)] {
            let fields = line.utf8.split(separator: UInt8(ascii: " ")).map(Substring.init)
            guard fields.count == 5, let inode = UInt64(fields[1]), let size = Int64(fields[2]), let modified = Int64(fields[3]),
                let changed = Int64(fields[4])
            else { return nil }
            files[String(fields[0])] = FileMark(inode: inode, size: size, modified: modified, changed: changed)
        }
        self.init(epoch: String(lines[1]), indexHeader: String(lines[2]), indexLength: length, files: files)
    }

    /// The stamp at `url`; nil when there is none or it cannot be read as one.
    static func read(from url: URL) -> CensusStamp? {
        guard case .regular(let descriptor)? = try? SafeFile.open(url.path, O_RDONLY) else { return nil }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard let data = try? handle.readToEnd() else { return nil }
        return CensusStamp(text: Substring(String(decoding: data, as: UTF8.self)))
    }

    /// Replaces the stamp at `url` whole (a new file renamed over it). Not synced: a stamp lost
    /// to a crash costs one census.
    func write(to url: URL) throws(StorageError) {
        let temporary = url.path + ".\(UUID().uuidString.prefix(8)).tmp"
        guard case .regular(let descriptor) = try SafeFile.open(temporary, O_WRONLY | O_CREAT | O_EXCL) else {
            throw SafeFile.posixError(EEXIST, "cannot create \(temporary)")
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                let code = errno
                close(descriptor)
                unlink(temporary)
                throw SafeFile.posixError(code, "cannot write \(temporary)")
            }
            written += count
        }
        close(descriptor)
        guard rename(temporary, url.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw SafeFile.posixError(code, "cannot replace \(url.path)")
        }
    }

    /// The keyring files of `group`'s shards in `directory` (`<shard label>.keyring`), with the
    /// shard each holds; nil when the directory cannot be read or holds something other than a
    /// regular file under such a name.
    static func keyringFiles(of group: String, in directory: URL) -> (marks: [String: FileMark], shards: Set<ShardIndex.ShardID>)? {
        guard let stream = opendir(directory.path) else { return nil }
        defer { closedir(stream) }
        let prefix = CollectionDirectory.label(for: group)
        let suffix = ".keyring"
        var marks: [String: FileMark] = [:]
        var shards = Set<ShardIndex.ShardID>()
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { continue }
            // Another group whose name starts with this one's, or no shard's file.
            guard let shard = CollectionDirectory.shardID(labelSuffix: name.dropLast(suffix.count).dropFirst(prefix.count)) else { continue }
            // Relative to the open directory: no path to build per file (a group of 10,000
            // items has 313 of them, and a writer looks at every one after each change).
            var info = stat()
            guard fstatat(dirfd(stream), name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
            else { return nil }
            marks[name] = FileMark(
                inode: UInt64(info.st_ino), size: Int64(info.st_size),
                modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                changed: Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec))
            shards.insert(shard)
        }
        return (marks, shards)
    }
}

extension SecretServiceStore {
    /// The state of `group`'s keyring files now; nil without a known keyring directory.
    func keyringFileMarks(of group: String) -> (marks: [String: CensusStamp.FileMark], shards: Set<ShardID>)? {
        guard configuration.layout.masterPassword != nil, let directory = configuration.keyringFiles else { return nil }
        return CensusStamp.keyringFiles(of: group, in: directory)
    }

    /// Whether the last census of `group` still stands: same daemon run, the index as loaded
    /// (whole) is the one it confirmed, and no keyring file of the group changed since.
    func censusStampHolds(_ group: String, _ service: ServiceHandle) -> Bool {
        guard let point = indexes.readPoint(group), let files = keyringFileMarks(of: group),
            let stamp = CensusStamp.read(from: CensusStamp.file(for: group, locks: locks))
        else { return false }
        return stamp.epoch == service.owner && stamp.indexHeader == point.header && stamp.indexLength == point.length
            && stamp.files == files.marks
    }

    /// Keeps what a census that agreed with the index saw: `files`, read before the census,
    /// and the index as loaded before that. Only when the census counted every shard the files
    /// name (none kept shut by the device, none elsewhere than at its own file).
    func stampCensus(_ group: String, files: (marks: [String: CensusStamp.FileMark], shards: Set<ShardID>)?, counted: Census, _ service: ServiceHandle) {
        guard let files, let point = indexes.readPoint(group), let owner = service.owner else { return }
        if !counted.unseen.isEmpty || Set(counted.paths.keys) != files.shards { return }
        writeStamp(CensusStamp(epoch: owner, indexHeader: point.header, indexLength: point.length, files: files.marks), for: group)
    }

    /// At the end of a hold of `group`'s lock that succeeded: the files moved by this store's
    /// own writes, its index confirmed in this daemon run, and its records appended. Without
    /// that (the index not confirmed, or not all of it: an append that failed, shards the
    /// device kept shut from the census), the stamp is left to go stale.
    func restampAfterHold(_ group: String) {
        guard configuration.layout.masterPassword != nil, configuration.keyringFiles != nil, !indexes.isUnconfirmed(group),
            let epoch = indexes.readPoint(group)?.verifiedEpoch, case .loaded(_, verified: true)? = try? indexes.load(group, epoch: epoch),
            let point = indexes.readPoint(group), let owner = epoch, let files = keyringFileMarks(of: group)
        else { return }
        writeStamp(CensusStamp(epoch: owner, indexHeader: point.header, indexLength: point.length, files: files.marks), for: group)
    }

    private func writeStamp(_ stamp: CensusStamp, for group: String) {
        // A hold that changed nothing leaves the stamp as it was: no rewrite, and no read of the
        // file when this store wrote that stamp itself. Whatever another process wrote since, a
        // stamp is trusted only while it matches the files as they are.
        let file = CensusStamp.file(for: group, locks: locks)
        if let last = stampsWritten.withLock({ $0[group] }) {
            if last == stamp { return }
        } else if CensusStamp.read(from: file) == stamp {
            stampsWritten.withLock { $0[group] = stamp }
            return
        }
        do { try stamp.write(to: file) } catch {
            // Only the next process's census is lost: said at debug level.
            logger.debug("could not keep a census of a shard index", metadata: ["group": "\(group)", "reason": "\(error)"])
            return
        }
        stampsWritten.withLock { $0[group] = stamp }
    }
}
