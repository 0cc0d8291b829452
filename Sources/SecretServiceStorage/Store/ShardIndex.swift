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
/// Before a store relies on a group's index it checks it against the keyring, and rebuilds it
/// when they disagree (`SecretServiceStore+IndexTrust.swift`).
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
