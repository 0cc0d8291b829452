import Foundation
import KeychainStorage
import Synchronization

/// The index files of a store's groups: each read incrementally (only what was appended since
/// the last look), appended to under the group's lock, replaced by a wipe or a rebuild.
///
/// A file is a hint: whatever it holds, the worst outcome is a rebuild from the keyring. So a
/// file that cannot be accounted for (no complete header, a line that is no record, a directory,
/// FIFO, socket or symlink in its place) is reported as ``Loading/unusable(_:)`` for the store to
/// rebuild, never followed, waited on or trusted.
final class ShardIndexFiles: Sendable {
    static let headerPrefix = "shared-keychain shard index 1 "

    /// What a group's index file says.
    enum Loading {
        /// No index file: a group from before indexes, or never written.
        case absent
        /// `verified`: this store checked it against the keyring during daemon run `epoch`.
        case loaded(ShardIndex, verified: Bool)
        /// Why it cannot be used, for a person.
        case unusable(String)
    }

    private struct Loaded {
        var header: String
        var offset: Int
        var index = ShardIndex()
        /// The daemon run (its bus name) during which the keyring confirmed this index.
        var verifiedEpoch: String??
        /// The file's length when last loaded: `offset` short of it, a line was still being written.
        var fileLength = 0
    }

    /// How far the group's index was read when last loaded: what a census stamp names.
    struct ReadPoint: Equatable {
        /// The file's header line (a new one on every wipe or rebuild).
        var header: String
        /// The bytes read, whole records only, which were the whole file.
        var length: Int
        /// The daemon run during which the keyring confirmed the index, if it did.
        var verifiedEpoch: String??
    }

    let locks: GroupLocks
    private let loaded = Mutex<[String: Loaded]>([:])
    /// Tests: the error the next append fails with (a full disk, a lost mount).
    private let appendFault = Mutex<StorageError?>(nil)
    /// Groups whose index this store trusts without having confirmed all of it since it was
    /// last replaced (a record it could not append, shards the device kept shut from the
    /// census): their census stamps are not renewed, so the next process counts and repairs.
    private let unconfirmed = Mutex<Set<String>>([])

    init(locks: GroupLocks) {
        self.locks = locks
    }

    func file(for group: String) -> URL {
        locks.lockFile(for: group).deletingPathExtension().appendingPathExtension("shards")
    }

    /// The group's index as the file holds it now; nil when there is no index file. An unusable
    /// file is an error here (for tests and tools); the store uses ``load(_:epoch:)``.
    func current(_ group: String) throws(StorageError) -> ShardIndex? {
        switch try load(group, epoch: nil) {
        case .absent: return nil
        case .loaded(let index, _): return index
        case .unusable(let reason): throw .backend(domain: "shared-keychain.index", code: 0, message: reason)
        }
    }

    /// Reads what was appended to the group's index since the last look (all of it after a new
    /// header, or when the file shrank under the same one).
    func load(_ group: String, epoch: String?) throws(StorageError) -> Loading {
        let path = file(for: group).path
        let descriptor: Int32
        switch try SafeFile.open(path, O_RDONLY) {
        case .regular(let opened): descriptor = opened
        case .missing: return forget(group, .absent)
        case .notRegular(let kind): return forget(group, .unusable("the shard index \(path) is \(kind), not a regular file"))
        }
        defer { close(descriptor) }
        let head = try Self.readBytes(descriptor, from: 0, limit: 128)
        guard let newline = head.firstIndex(of: UInt8(ascii: "\n")),
            let header = String(bytes: head[..<newline], encoding: .utf8), header.hasPrefix(Self.headerPrefix)
        else {
            return forget(group, .unusable("the shard index \(path) has no valid header (a torn write or an edit)"))
        }
        let size = Int(lseek(descriptor, 0, SEEK_END))
        // Refreshed in place under the mutex: a copy taken out would copy every table.
        return try loaded.withLock { (table) throws(StorageError) -> Loading in
            var state = table.removeValue(forKey: group) ?? Loaded(header: header, offset: newline + 1)
            if state.header != header || size < state.offset {
                state = Loaded(header: header, offset: newline + 1)
            }
            let tail = try Self.readBytes(descriptor, from: state.offset, limit: nil)
            // Only whole lines: a writer may be appending the rest of the last one.
            if let end = tail.lastIndex(of: UInt8(ascii: "\n")) {
                // A record is about 40 bytes: the tables are sized once for a file read whole,
                // at most for a million records (an index is a file anyone may fill).
                if state.index.shards.isEmpty { state.index.reserveCapacity(min(end / 40, 1 << 20)) }
                let whole = tail.withUnsafeBufferPointer { bytes in
                    var start = 0
                    for index in 0...end where bytes[index] == UInt8(ascii: "\n") {
                        defer { start = index + 1 }
                        // Empty lines are skipped, as splitting the text skipped them.
                        guard index > start else { continue }
                        guard let record = ShardIndex.Record(bytes: UnsafeBufferPointer(rebasing: bytes[start..<index])) else { return false }
                        state.index.apply(record)
                    }
                    return true
                }
                guard whole else {
                    return .unusable("the shard index \(path) holds a line that is not a record (a torn write or an edit)")
                }
                state.offset += end + 1
            }
            state.fileLength = size
            table[group] = state
            return .loaded(state.index, verified: state.verifiedEpoch == .some(epoch))
        }
    }

    /// Notes that the keyring confirmed the group's index as last loaded, during daemon run
    /// `epoch`: this store trusts it (and what writers append to it) until the daemon restarts
    /// or the file is replaced.
    func markVerified(_ group: String, epoch: String?) {
        loaded.withLock { $0[group]?.verifiedEpoch = .some(epoch) }
    }

    /// Where the last load of the group's index stopped; nil unless it read the whole file
    /// (a torn last line, or a file not loaded, names no point a census could have confirmed).
    func readPoint(_ group: String) -> ReadPoint? {
        loaded.withLock { table in
            guard let state = table[group], state.offset == state.fileLength else { return nil }
            return ReadPoint(header: state.header, length: state.offset, verifiedEpoch: state.verifiedEpoch)
        }
    }

    private func forget(_ group: String, _ loading: Loading) -> Loading {
        loaded.withLock { _ = $0.removeValue(forKey: group) }
        return loading
    }

    /// Whether the group has an index file (of any kind).
    func exists(_ group: String) -> Bool {
        SafeFile.exists(file(for: group).path)
    }

    /// Appends `records` (the caller holds the group's lock). A line torn by a crash is closed
    /// first, so the new records start on lines of their own.
    func append(_ records: [ShardIndex.Record], to group: String) throws(StorageError) {
        guard !records.isEmpty else { return }
        if let fault = appendFault.withLock({ $0.take() }) { throw fault }
        let path = file(for: group).path
        let descriptor: Int32
        switch try SafeFile.open(path, O_RDWR | O_APPEND) {
        case .regular(let opened): descriptor = opened
        case .missing: throw SafeFile.posixError(ENOENT, "cannot open the shard index \(path)")
        case .notRegular(let kind):
            throw .backend(domain: "shared-keychain.index", code: 0, message: "the shard index \(path) is \(kind), not a regular file")
        }
        defer { close(descriptor) }
        var text = records.map(\.line).joined()
        let size = lseek(descriptor, 0, SEEK_END)
        if size > 0, let last = try? Self.readBytes(descriptor, from: Int(size) - 1, limit: 1), last != [UInt8(ascii: "\n")] {
            text = "\n" + text
        }
        try Self.writeBytes(descriptor, Array(text.utf8), path)
    }

    /// Notes that this store trusts `group`'s index without having confirmed all of it.
    func noteUnconfirmed(_ group: String) {
        _ = unconfirmed.withLock { $0.insert(group) }
    }

    /// Whether this store trusts `group`'s index without having confirmed all of it.
    func isUnconfirmed(_ group: String) -> Bool {
        unconfirmed.withLock { $0.contains(group) }
    }

    /// Makes the next append fail with `error`, as a full disk would (tests).
    func failNextAppend(with error: StorageError) {
        appendFault.withLock { $0 = error }
    }

    /// Replaces the group's index with `index` under a new header (the caller holds the lock):
    /// after a wipe (an empty index) or when rebuilding from the keyring. Whatever is not a
    /// regular file in its place is moved aside first; returns where to, if anything was.
    /// `verifiedEpoch`: the daemon run whose keyring the index was built from, if it was.
    @discardableResult
    func replace(_ group: String, with index: ShardIndex, verifiedEpoch: String?? = nil) throws(StorageError) -> String? {
        let target = file(for: group)
        let header = Self.headerPrefix + UUID().uuidString
        var text = header + "\n"
        for (key, shard) in index.shards.sorted(by: { $0.value < $1.value }) {
            text += ShardIndex.Record.place(key, shard: shard).line
        }
        var movedAside: String?
        if SafeFile.exists(target.path) && !SafeFile.isRegular(target.path) {
            let aside = target.path + ".damaged-\(UUID().uuidString.prefix(8))"
            guard rename(target.path, aside) == 0 else {
                throw SafeFile.posixError(errno, "cannot move \(target.path) aside (remove it; the index is rebuilt from the keyring)")
            }
            movedAside = aside
        }
        // Whole or not at all: a temporary file, synced, renamed over the index.
        do { try PrivateFile.write(Data(text.utf8), to: target) } catch {
            throw .backend(domain: "posix", code: 0, message: "cannot replace the shard index: \(error.description)")
        }
        _ = unconfirmed.withLock { $0.remove(group) }
        loaded.withLock {
            $0[group] = Loaded(header: header, offset: text.utf8.count, index: index, verifiedEpoch: verifiedEpoch, fileLength: text.utf8.count)
        }
        return movedAside
    }

    private static func readBytes(_ descriptor: Int32, from offset: Int, limit: Int?) throws(StorageError) -> [UInt8] {
        var result: [UInt8] = []
        var position = offset
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while limit.map({ result.count < $0 }) ?? true {
            let wanted = min(buffer.count, (limit ?? Int.max) - result.count)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(position)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SafeFile.posixError(errno, "cannot read a shard index")
            }
            if count == 0 { break }
            result += buffer[..<count]
            position += count
        }
        return result
    }

    private static func writeBytes(_ descriptor: Int32, _ bytes: [UInt8], _ path: String) throws(StorageError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SafeFile.posixError(errno, "cannot write the shard index \(path)")
            }
            written += count
        }
    }
}
