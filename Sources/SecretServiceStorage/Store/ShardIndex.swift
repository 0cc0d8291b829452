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
            var bytes = Array(text.utf8)
            guard let shard = bytes.withUnsafeMutableBufferPointer({ ShardID(bytes: UnsafeBufferPointer($0)) }) else { return nil }
            self = shard
        }

        /// `3`, `ck0`, `dk2` from an index record's bytes: decimal digits (as `Int(_:)` reads
        /// them, an optional `+` and no `-`), after the class code if any.
        init?(bytes text: UnsafeBufferPointer<UInt8>) {
            var protection = ProtectionClass.untilUnlocked
            var digits = text[...]
            if text.count >= 2, text[0] == UInt8(ascii: "c") || text[0] == UInt8(ascii: "d"), text[1] == UInt8(ascii: "k") {
                protection = text[0] == UInt8(ascii: "c") ? .untilFirstUnlock : .none
                digits = text[2...]
            }
            if digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
            guard !digits.isEmpty else { return nil }
            var number = 0
            for byte in digits {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                let (times, overflow) = number.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                number = sum
            }
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
    /// How many items of each account hash, service hash, and account-and-service pair
    /// (``Key/pair``: every variant) each shard holds. Flat, keyed by hash and shard: a new
    /// process builds them from every record of its group's index before its first call, and
    /// a table per hash cost a dictionary per item; a lookup asks each shard of the group.
    private var accountShards: [HashInShard<UInt64>: Int] = [:]
    private var pairShards: [HashInShard<Key>: Int] = [:]
    private var serviceShards: [HashInShard<UInt64>: Int] = [:]

    /// A hash's entry in one shard.
    private struct HashInShard<Hash: Hashable & Sendable>: Hashable, Sendable {
        var hash: Hash
        var shard: ShardID
    }

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
            let pair = Key(account: account, service: service)
            return sizes.keys.filter { pairShards[HashInShard(hash: pair, shard: $0)] != nil }.sorted()
        case let (account?, nil):
            let hash = Key.hash(account)
            return sizes.keys.filter { accountShards[HashInShard(hash: hash, shard: $0)] != nil }.sorted()
        case let (nil, service?):
            let hash = Key.hash(service)
            return sizes.keys.filter { serviceShards[HashInShard(hash: hash, shard: $0)] != nil }.sorted()
        case (nil, nil):
            return sizes.filter { $0.value > 0 }.keys.sorted()
        }
    }

    /// Makes room for `count` items, so that reading a big index does not grow every table
    /// again and again.
    mutating func reserveCapacity(_ count: Int) {
        shards.reserveCapacity(count)
        accountShards.reserveCapacity(count)
        pairShards.reserveCapacity(count)
    }

    /// Records `key` in `shard` (moving its record if it had one elsewhere).
    mutating func place(_ key: Key, in shard: ShardID) {
        remove(key)
        shards[key] = shard
        sizes[shard, default: 0] += 1
        accountShards[HashInShard(hash: key.account, shard: shard), default: 0] += 1
        serviceShards[HashInShard(hash: key.service, shard: shard), default: 0] += 1
        pairShards[HashInShard(hash: key.pair, shard: shard), default: 0] += 1
    }

    mutating func remove(_ key: Key) {
        guard let shard = shards.removeValue(forKey: key) else { return }
        sizes[shard, default: 1] -= 1
        Self.decrement(&accountShards, key.account, shard)
        Self.decrement(&serviceShards, key.service, shard)
        Self.decrement(&pairShards, key.pair, shard)
    }

    private static func decrement<Hash: Hashable & Sendable>(_ table: inout [HashInShard<Hash>: Int], _ hash: Hash, _ shard: ShardID) {
        let entry = HashInShard(hash: hash, shard: shard)
        guard let count = table[entry] else { return }
        table[entry] = count > 1 ? count - 1 : nil
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
            var bytes = Array(line.utf8)
            guard let record = bytes.withUnsafeMutableBufferPointer({ Record(bytes: UnsafeBufferPointer($0)) }) else { return nil }
            self = record
        }

        /// A record from the bytes of one line (no newline); nil for anything else. Bytes, not
        /// a String's characters: a new process reads every record of its group's index before
        /// its first call, 10,000 lines for a group of 10,000 items.
        init?(bytes line: UnsafeBufferPointer<UInt8>) {
            var fields: [Range<Int>] = []
            fields.reserveCapacity(5)
            var start = 0
            for index in 0...line.count where index == line.count || line[index] == UInt8(ascii: " ") {
                // Fields are separated by one space; an empty field is no record.
                guard index > start, fields.count < 5 else { return nil }
                fields.append(start..<index)
                start = index + 1
            }
            guard let kind = fields.first, kind.count == 1 else { return nil }
            switch (line[kind.lowerBound], fields.count) {
            case (UInt8(ascii: "+"), 4), (UInt8(ascii: "+"), 5):
                guard let shard = ShardID(bytes: UnsafeBufferPointer(rebasing: line[fields[1]])),
                    let key = Self.key(fields[2...], in: line)
                else { return nil }
                self = .place(key, shard: shard)
            case (UInt8(ascii: "-"), 3), (UInt8(ascii: "-"), 4):
                guard let key = Self.key(fields[1...], in: line) else { return nil }
                self = .remove(key)
            default:
                return nil
            }
        }

        /// Account, service and (optionally) variant hashes.
        private static func key(_ fields: ArraySlice<Range<Int>>, in line: UnsafeBufferPointer<UInt8>) -> Key? {
            var numbers: [UInt64] = []
            numbers.reserveCapacity(3)
            for field in fields {
                guard let number = hexNumber(UnsafeBufferPointer(rebasing: line[field])) else { return nil }
                numbers.append(number)
            }
            guard numbers.count >= 2 else { return nil }
            let variant = numbers.count > 2 ? numbers[2] : 0
            // A fifth field of 0 is not written: refused, like any line the writer never makes.
            guard numbers.count == 2 || variant != 0 else { return nil }
            return Key(accountHash: numbers[0], serviceHash: numbers[1], variant: variant)
        }

        /// At most 16 hex digits, either case, as `UInt64(_:radix: 16)` reads them (no sign).
        private static func hexNumber(_ digits: UnsafeBufferPointer<UInt8>) -> UInt64? {
            guard !digits.isEmpty, digits.count <= 16 else { return nil }
            var value: UInt64 = 0
            for byte in digits {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt64(digit)
            }
            return value
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
