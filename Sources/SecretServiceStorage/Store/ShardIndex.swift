import Foundation
import KeychainStorage
import Synchronization

/// Which shard (collection) of its access group holds each item, in the sharded per-group
/// layout: an append-only log file beside the group's lock file.
///
/// gnome-keyring rewrites and re-encrypts a whole collection file on every change, so a write
/// costs about 3 ms plus 0.05 ms per item already in its collection. A group therefore spreads
/// over shards of at most ``SecretServiceStore/Configuration/shardCapacity`` items: new items
/// go to the oldest shard with room, and items never move (but one that outgrows a shared shard,
/// ``aloneBase``). The index lets a write find an item's shard without gnome-keyring's
/// service-wide search, which walks every item of every collection.
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
/// <service hash>` for one removed. Items whose primary key holds more than account and service
/// (a synchronizable item, an internet password) add a fifth field, the hash of the rest of their
/// key (``Key/variant``), so a local and a synchronizable item with one account and service have
/// a record each. Hashes are the first 64 bits of SHA-256, in hex; two keys would have to
/// collide in every field to be confused.
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

        /// Whether this shard is one of those that hold one item alone (numbers from
        /// ``ShardIndex/aloneBase``), which new items never go to.
        var holdsOneItem: Bool { number >= ShardIndex.aloneBase }

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
        /// The rest of the key (synchronizable, the internet-password attributes) hashed; 0 for
        /// a local generic password, whose records have no such field.
        let variant: UInt64

        init(account: String, service: String) {
            self.account = Self.hash(account)
            self.service = Self.hash(service)
            variant = 0
        }

        init(_ key: PrimaryKey) {
            account = Self.hash(key.account)
            service = Self.hash(key.service)
            guard key.synchronizable || key.internet != nil || key.key != nil else {
                variant = 0
                return
            }
            var rest = key.synchronizable ? "sync" : "local"
            if let internet = key.internet {
                rest += "\u{0}internet"
                for field in [internet.securityDomain, internet.server, internet.protocol, internet.authenticationType, String(internet.port), internet.path] {
                    rest += "\u{0}" + field
                }
            }
            if let attributes = key.key {
                rest += "\u{0}key\u{0}" + attributes.keyClass + "\u{0}" + attributes.applicationLabel.base64EncodedString()
                for field in [attributes.applicationTag.base64EncodedString(), String(attributes.keyType), String(attributes.keySizeInBits), String(attributes.effectiveKeySize)] {
                    rest += "\u{0}" + field
                }
            }
            // 0 is kept for local generic passwords.
            variant = max(Self.hash(rest), 1)
        }

        init(accountHash: UInt64, serviceHash: UInt64, variant: UInt64 = 0) {
            account = accountHash
            service = serviceHash
            self.variant = variant
        }

        /// Account and service alone: what a lookup by the two finds every variant of.
        var pair: Key { Key(accountHash: account, serviceHash: service) }

        static func hash(_ value: String) -> UInt64 {
            UInt64(GLibValues.sha256Hex(value).prefix(16), radix: 16) ?? 0
        }
    }

    private(set) var shards: [Key: ShardID] = [:]
    /// Items per shard; a shard with none keeps a zero entry while it exists.
    private(set) var sizes: [ShardID: Int] = [:]
    private var accountShards: [UInt64: [ShardID: Int]] = [:]
    /// By account and service (``Key/pair``): every variant's shards.
    private var pairShards: [Key: [ShardID: Int]] = [:]
    private var serviceShards: [UInt64: [ShardID: Int]] = [:]

    /// The shard a new item of `protection` goes to: the class's oldest shard with room (deletes
    /// leave room behind), or a new one after the newest when every shard is full. Filling
    /// holes keeps the number of collections near what the items need: each one is a file
    /// gnome-keyring looks at on every call, so shards emptied by deletes and never refilled
    /// made every later call of every client dearer.
    func shardForNewItem(capacity: Int, protection: ProtectionClass = .untilUnlocked) -> ShardID {
        let shared = sizes.filter { $0.key.protection == protection && !$0.key.holdsOneItem }
        let roomy = shared.filter { $0.value < capacity }.keys.map(\.number).min()
        return ShardID(protection, roomy ?? shared.keys.map { $0.number + 1 }.max() ?? 0)
    }

    /// Shard numbers from here up each hold one item: an item grown so big that every write to
    /// a shard it shares would rewrite it too (gnome-keyring rewrites a whole collection file
    /// on every change). MSAL's account-metadata item, one per client with an entry per account,
    /// is such an item: hundreds of kilobytes at a thousand accounts, rewritten on every sign-in.
    static let aloneBase = 1_000_000

    /// A new shard of `protection` for one item alone.
    func shardForItemAlone(protection: ProtectionClass) -> ShardID {
        let used = sizes.keys.filter { $0.protection == protection && $0.holdsOneItem }.map(\.number).max()
        return ShardID(protection, used.map { $0 + 1 } ?? Self.aloneBase)
    }

    /// The shards that may hold items with `account` and `service` (either may be nil), of any
    /// variant (local or synchronizable, either class): ascending, possibly empty.
    func candidateShards(account: String?, service: String?) -> [ShardID] {
        switch (account, service) {
        case let (account?, service?):
            return (pairShards[Key(account: account, service: service)] ?? [:]).keys.sorted()
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
        pairShards[key.pair, default: [:]][shard, default: 0] += 1
    }

    mutating func remove(_ key: Key) {
        guard let shard = shards.removeValue(forKey: key) else { return }
        sizes[shard, default: 1] -= 1
        Self.decrement(&accountShards, key.account, shard)
        Self.decrement(&serviceShards, key.service, shard)
        Self.decrement(&pairShards, key.pair, shard)
    }

    private static func decrement<Hash: Hashable>(_ table: inout [Hash: [ShardID: Int]], _ hash: Hash, _ shard: ShardID) {
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
            case .place(let key, let shard): "+ \(shard) \(Self.fields(key))\n"
            case .remove(let key): "- \(Self.fields(key))\n"
            }
        }

        /// The key's hashes: account, service, and the variant when it is not 0.
        private static func fields(_ key: Key) -> String {
            let pair = "\(hex(key.account)) \(hex(key.service))"
            return key.variant == 0 ? pair : pair + " " + hex(key.variant)
        }

        /// A record from one line; nil for anything else (a line torn by a crash).
        init?(line: Substring) {
            let fields = line.split(separator: " ")
            switch (fields.first, fields.count) {
            case ("+", 4), ("+", 5):
                guard let shard = ShardID(fields[1]), let key = Self.key(fields[2...]) else { return nil }
                self = .place(key, shard: shard)
            case ("-", 3), ("-", 4):
                guard let key = Self.key(fields[1...]) else { return nil }
                self = .remove(key)
            default:
                return nil
            }
        }

        /// Account, service and (optionally) variant hashes.
        private static func key(_ fields: ArraySlice<Substring>) -> Key? {
            let numbers = fields.compactMap { UInt64($0, radix: 16) }
            guard numbers.count == fields.count, numbers.count >= 2 else { return nil }
            let variant = numbers.count > 2 ? numbers[numbers.startIndex + 2] : 0
            // A fifth field of 0 is not written: refused, like any line the writer never makes.
            guard numbers.count == 2 || variant != 0 else { return nil }
            return Key(accountHash: numbers[numbers.startIndex], serviceHash: numbers[numbers.startIndex + 1], variant: variant)
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

    /// Notes that `shard` exists (so an empty shard is filled before a new one opens).
    mutating func noteShard(_ shard: ShardID) {
        if sizes[shard] == nil { sizes[shard] = 0 }
    }
}
