import Foundation
import KeychainStorage
import Synchronization

/// Which shard (collection) of its access group holds each item, in the sharded per-group
/// layout: an append-only log file beside the group's lock file.
///
/// gnome-keyring rewrites and re-encrypts a whole collection file on every change, so a write
/// costs about 3 ms plus 0.05 ms per item already in its collection. A group therefore spreads
/// over shards of at most ``SecretServiceStore/Configuration/shardCapacity`` items: new items
/// go to the newest shard, and items never move. The index lets a write find an item's shard
/// without gnome-keyring's service-wide search, which walks every item of every collection.
///
/// The index is a hint the keyring confirms, never the truth: every lookup searches the shards
/// it names by the item's attributes. A record is appended BEFORE the item is created and a
/// removal AFTER it is deleted, so a crash leaves at worst a record of an item that is not there
/// (one extra search), never an item the index cannot find. Writers append under the group's
/// lock; readers read without it. A wipe replaces the file (a new header), which readers notice.
///
/// Format (text, one record per line): a header `shared-keychain shard index 1 <generation>`,
/// then `+ <shard> <account hash> <service hash>` for an item placed (the shard is its number,
/// prefixed `ck` or `dk` for the `afterFirstUnlock` and `always` classes) and `- <account hash>
/// <service hash>` for one removed. Hashes are the first 64 bits of SHA-256, in hex; two keys
/// would have to collide in both to be confused.
struct ShardIndex: Sendable, Equatable {
    /// One shard of a group: its protection class (each class has shards of its own, which
    /// the device's lock locks in gnome-keyring) and its number within the class.
    struct ShardID: Hashable, Sendable, Comparable, CustomStringConvertible {
        var protection: ProtectionClass
        var number: Int

        init(_ protection: ProtectionClass = .untilUnlocked, _ number: Int) {
            self.protection = protection
            self.number = number
        }

        /// The class's code in labels and index records: none for `untilUnlocked` (shards of
        /// earlier versions), `ck` and `dk` after Apple's constants for the others.
        var classCode: String {
            switch protection {
            case .untilUnlocked: ""
            case .untilFirstUnlock: "ck"
            case .none: "dk"
            }
        }

        /// `3`, `ck0`, `dk2`: as index records write it.
        var description: String { classCode + String(number) }

        init?(_ text: Substring) {
            var protection = ProtectionClass.untilUnlocked
            var digits = text
            if text.hasPrefix("ck") { protection = .untilFirstUnlock; digits = text.dropFirst(2) }
            if text.hasPrefix("dk") { protection = .none; digits = text.dropFirst(2) }
            guard let number = Int(digits), number >= 0 else { return nil }
            self.init(protection, number)
        }

        static func < (lhs: ShardID, rhs: ShardID) -> Bool {
            (lhs.classCode, lhs.number) < (rhs.classCode, rhs.number)
        }
    }

    /// An item's primary key within its group, hashed.
    struct Key: Hashable, Sendable {
        let account: UInt64
        let service: UInt64

        init(account: String, service: String) {
            self.account = Self.hash(account)
            self.service = Self.hash(service)
        }

        init(_ key: PrimaryKey) {
            self.init(account: key.account, service: key.service)
        }

        init(accountHash: UInt64, serviceHash: UInt64) {
            account = accountHash
            service = serviceHash
        }

        static func hash(_ value: String) -> UInt64 {
            UInt64(GLibValues.sha256Hex(value).prefix(16), radix: 16) ?? 0
        }
    }

    private(set) var shards: [Key: ShardID] = [:]
    /// Items per shard; a shard with none keeps a zero entry while it exists.
    private(set) var sizes: [ShardID: Int] = [:]
    private var accountShards: [UInt64: [ShardID: Int]] = [:]
    private var serviceShards: [UInt64: [ShardID: Int]] = [:]

    /// The newest shard of `protection`: where its new items go while it has room.
    func newestShard(_ protection: ProtectionClass) -> ShardID {
        ShardID(protection, sizes.keys.filter { $0.protection == protection }.map(\.number).max() ?? 0)
    }

    /// The shard a new item of `protection` goes to: the class's newest, or the next one when
    /// the newest is full.
    func shardForNewItem(capacity: Int, protection: ProtectionClass = .untilUnlocked) -> ShardID {
        let newest = newestShard(protection)
        return (sizes[newest] ?? 0) < capacity ? newest : ShardID(protection, newest.number + 1)
    }

    /// The shards that may hold items with `account` and `service` (either may be nil):
    /// ascending, possibly empty.
    func candidateShards(account: String?, service: String?) -> [ShardID] {
        switch (account, service) {
        case let (account?, service?):
            return shards[Key(account: account, service: service)].map { [$0] } ?? []
        case let (account?, nil):
            return (accountShards[Key.hash(account)] ?? [:]).keys.sorted()
        case let (nil, service?):
            return (serviceShards[Key.hash(service)] ?? [:]).keys.sorted()
        case (nil, nil):
            return sizes.filter { $0.value > 0 }.keys.sorted()
        }
    }

    /// Records `key` in `shard` (moving its record if it had one elsewhere).
    mutating func place(_ key: Key, in shard: ShardID) {
        remove(key)
        shards[key] = shard
        sizes[shard, default: 0] += 1
        accountShards[key.account, default: [:]][shard, default: 0] += 1
        serviceShards[key.service, default: [:]][shard, default: 0] += 1
    }

    mutating func remove(_ key: Key) {
        guard let shard = shards.removeValue(forKey: key) else { return }
        sizes[shard, default: 1] -= 1
        Self.decrement(&accountShards, key.account, shard)
        Self.decrement(&serviceShards, key.service, shard)
    }

    private static func decrement(_ table: inout [UInt64: [ShardID: Int]], _ hash: UInt64, _ shard: ShardID) {
        guard var counts = table[hash], let count = counts[shard] else { return }
        counts[shard] = count > 1 ? count - 1 : nil
        table[hash] = counts.isEmpty ? nil : counts
    }

    // MARK: Records

    enum Record: Equatable {
        case place(Key, shard: ShardID)
        case remove(Key)

        var line: String {
            switch self {
            case .place(let key, let shard): "+ \(shard) \(Self.hex(key.account)) \(Self.hex(key.service))\n"
            case .remove(let key): "- \(Self.hex(key.account)) \(Self.hex(key.service))\n"
            }
        }

        /// A record from one line; nil for anything else (a line torn by a crash).
        init?(line: Substring) {
            let fields = line.split(separator: " ")
            switch (fields.first, fields.count) {
            case ("+", 4):
                guard let shard = ShardID(fields[1]), let key = Self.key(fields[2], fields[3]) else { return nil }
                self = .place(key, shard: shard)
            case ("-", 3):
                guard let key = Self.key(fields[1], fields[2]) else { return nil }
                self = .remove(key)
            default:
                return nil
            }
        }

        private static func key(_ account: Substring, _ service: Substring) -> Key? {
            guard let account = UInt64(account, radix: 16), let service = UInt64(service, radix: 16) else { return nil }
            return Key(accountHash: account, serviceHash: service)
        }

        private static func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }

    mutating func apply(_ record: Record) {
        switch record {
        case .place(let key, let shard): place(key, in: shard)
        case .remove(let key): remove(key)
        }
    }

    /// Notes that `shard` exists (so an empty shard still counts as the newest).
    mutating func noteShard(_ shard: ShardID) {
        if sizes[shard] == nil { sizes[shard] = 0 }
    }
}

/// The index files of a store's groups: each read incrementally (only what was appended since
/// the last look), appended to under the group's lock, replaced by a wipe.
final class ShardIndexFiles: Sendable {
    static let headerPrefix = "shared-keychain shard index 1 "

    private struct Loaded {
        var header: String
        var offset: Int
        var index: ShardIndex
    }

    let locks: GroupLocks
    private let loaded = Mutex<[String: Loaded]>([:])
    /// Tests: the error the next append fails with (a full disk, a lost mount).
    private let appendFault = Mutex<StorageError?>(nil)

    init(locks: GroupLocks) {
        self.locks = locks
    }

    func file(for group: String) -> URL {
        locks.lockFile(for: group).deletingPathExtension().appendingPathExtension("shards")
    }

    /// The group's index as the file holds it now; nil when there is no index file yet (a
    /// group written before indexes existed, or never written).
    func current(_ group: String) throws(StorageError) -> ShardIndex? {
        let path = file(for: group).path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            guard code == ENOENT else { throw Self.posixError(code, "cannot open the shard index \(path)") }
            loaded.withLock { _ = $0.removeValue(forKey: group) }
            return nil
        }
        defer { close(descriptor) }
        let head = try Self.readBytes(descriptor, from: 0, limit: 128)
        guard let newline = head.firstIndex(of: UInt8(ascii: "\n")),
            let header = String(bytes: head[..<newline], encoding: .utf8), header.hasPrefix(Self.headerPrefix)
        else {
            throw .backend(domain: "shared-keychain.index", code: 0, message: "the shard index \(path) has no valid header")
        }
        // Refreshed in place under the mutex: a copy taken out would copy every table.
        return try loaded.withLock { (table) throws(StorageError) -> ShardIndex in
            var state = table.removeValue(forKey: group) ?? Loaded(header: header, offset: newline + 1, index: ShardIndex())
            if state.header != header {
                state = Loaded(header: header, offset: newline + 1, index: ShardIndex())
            }
            defer { table[group] = state }
            let tail = try Self.readBytes(descriptor, from: state.offset, limit: nil)
            if let end = tail.lastIndex(of: UInt8(ascii: "\n")) {
                for line in String(decoding: tail[...end], as: UTF8.self).split(separator: "\n") {
                    if let record = ShardIndex.Record(line: line) { state.index.apply(record) }
                }
                state.offset += end + 1
            }
            return state.index
        }
    }

    /// Appends `records` (the caller holds the group's lock). A line torn by a crash is closed
    /// first, so the new records start on lines of their own.
    func append(_ records: [ShardIndex.Record], to group: String) throws(StorageError) {
        guard !records.isEmpty else { return }
        if let fault = appendFault.withLock({ $0.take() }) { throw fault }
        let path = file(for: group).path
        let descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw Self.posixError(errno, "cannot open the shard index \(path)") }
        defer { close(descriptor) }
        var text = records.map(\.line).joined()
        let size = lseek(descriptor, 0, SEEK_END)
        if size > 0, let last = try? Self.readBytes(descriptor, from: Int(size) - 1, limit: 1), last != [UInt8(ascii: "\n")] {
            text = "\n" + text
        }
        try Self.writeBytes(descriptor, Array(text.utf8), path)
    }

    /// Makes the next append fail with `error`, as a full disk would (tests).
    func failNextAppend(with error: StorageError) {
        appendFault.withLock { $0 = error }
    }

    /// Replaces the group's index with `index` under a new header (the caller holds the lock):
    /// after a wipe (an empty index) or when rebuilding from the keyring.
    func replace(_ group: String, with index: ShardIndex) throws(StorageError) {
        let target = file(for: group)
        let temporary = target.appendingPathExtension("new")
        var text = Self.headerPrefix + UUID().uuidString + "\n"
        for (key, shard) in index.shards.sorted(by: { $0.value < $1.value }) {
            text += ShardIndex.Record.place(key, shard: shard).line
        }
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.posixError(errno, "cannot create \(temporary.path)") }
        do throws(StorageError) {
            try Self.writeBytes(descriptor, Array(text.utf8), temporary.path)
            guard fsync(descriptor) == 0 else { throw Self.posixError(errno, "cannot sync \(temporary.path)") }
        } catch {
            close(descriptor)
            unlink(temporary.path)
            throw error
        }
        close(descriptor)
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw Self.posixError(code, "cannot replace the shard index \(target.path)")
        }
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
                throw posixError(errno, "cannot read a shard index")
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
                throw posixError(errno, "cannot write the shard index \(path)")
            }
            written += count
        }
    }

    private static func posixError(_ code: Int32, _ what: String) -> StorageError {
        .backend(domain: "posix", code: Int(code), message: "\(what): \(String(cString: strerror(code)))")
    }
}
