import Foundation
import KeychainStorage
import Synchronization

/// Which collections hold each access group's shards (in the per-group layout), which
/// collections this store has seen unlocked during the current run of the daemon, and where it
/// last saw each item.
///
/// A group's shard 0 is labelled from the group name (``label(for:shard:)``), shard k > 0 the
/// same with `~k`; gnome-keyring derives the object path from the label, so the path is known
/// without asking. Shard 0's real path is confirmed once (it may predate shards), then cached.
final class CollectionDirectory: Sendable {
    /// One shard of an access group: a collection of its own.
    struct Shard: Hashable, Sendable {
        let group: String
        let id: ShardIndex.ShardID
    }

    private struct State {
        var paths: [Shard: String] = [:]
        /// Where this store last saw (or put) each item: a hint its reader confirms from the
        /// item's own record, so a stale one costs a search, never a wrong answer.
        var items: [PrimaryKey: String] = [:]
        /// Collections seen unlocked, valid for the daemon instance `epoch` (its unique bus name).
        var unlocked: Set<String> = []
        var epoch: String?
        /// The last look at the default collection for other clients' items (this epoch).
        var foreignCheck: (at: ContinuousClock.Instant, present: Bool)?
    }

    static let collectionPrefix = "/org/freedesktop/secrets/collection/"
    /// The alias libsecret and desktop tools use for "the user's keyring".
    static let defaultAlias = "/org/freedesktop/secrets/aliases/default"
    /// gnome-keyring's in-memory collection, unlocked while the daemon runs.
    static let sessionCollection = collectionPrefix + "session"

    private let state = Mutex(State())

    // MARK: Naming

    /// The collection label for `group`: `group-` and the name with every byte outside
    /// `[A-Za-z0-9.-]` written `_xx` (so distinct groups get distinct labels, and gnome-keyring
    /// keeps the label as its file name unchanged). A label that would pass 200 bytes (file
    /// names stop at 255) becomes `group-_sha256_<hex>`, which no escaped name can equal.
    /// `group-<group>`, then `~ck` or `~dk` for a class other than `whenUnlocked`'s, then
    /// `~k` for shard k > 0.
    static func label(for group: String, shard: ShardIndex.ShardID) -> String {
        var label = label(for: group)
        if !shard.classCode.isEmpty { label += "~" + shard.classCode }
        if shard.number > 0 { label += "~\(shard.number)" }
        return label
    }

    static func label(for group: String) -> String {
        var escaped = "group-"
        for byte in group.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
                escaped.append(Character(Unicode.Scalar(byte)))
            default:
                escaped += "_" + hex(byte)
            }
            if escaped.utf8.count > 200 { return "group-_sha256_" + GLibValues.sha256Hex(group) }
        }
        return escaped
    }

    /// The object path gnome-keyring gives a new collection labelled `label` (when no file of
    /// that name exists yet): the label with every byte outside `[A-Za-z0-9]` written `_xx`.
    static func expectedPath(forLabel label: String) -> String {
        var path = collectionPrefix
        for byte in label.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                path.append(Character(Unicode.Scalar(byte)))
            default:
                path += "_" + hex(byte)
            }
        }
        return path
    }

    /// Which shard of `group` `collection` is, by its path: the group's own path is shard 0 of
    /// `whenUnlocked`'s class, then `_7eck` or `_7edk` (`~ck`, `~dk`) for another class, then
    /// `_7e<k>` (`~k`) for shard k. Nil for any other collection.
    static func shardID(of collection: String, group: String) -> ShardIndex.ShardID? {
        let base = expectedPath(forLabel: label(for: group))
        guard collection.hasPrefix(base) else { return nil }
        return shardID(suffix: collection.dropFirst(base.count))
    }

    /// The shard a collection label names after its group's own label (`""`, `~ck`, `~3`,
    /// `~dk~2`, as ``label(for:shard:)`` writes them); nil for anything else, such as the label
    /// of another group whose name starts with this one's (`.b`, `_7eck`: a `~` in a group's
    /// name is escaped in its label).
    static func shardID(labelSuffix: Substring) -> ShardIndex.ShardID? {
        shardID(suffix: labelSuffix, separator: "~")
    }

    /// The shard a path suffix after the group's own path names (`""`, `_7eck`, `_7e3`,
    /// `_7edk_7e2`), or a label suffix with `~` as `separator`: the path escapes the `~`.
    private static func shardID(suffix: Substring, separator: String = "_7e") -> ShardIndex.ShardID? {
        var rest = suffix
        var protection = ProtectionClass.untilUnlocked
        if rest.hasPrefix(separator + "ck") { protection = .untilFirstUnlock; rest = rest.dropFirst(separator.count + 2) }
        else if rest.hasPrefix(separator + "dk") { protection = .none; rest = rest.dropFirst(separator.count + 2) }
        if rest.isEmpty { return ShardIndex.ShardID(protection, 0) }
        guard rest.hasPrefix(separator) else { return nil }
        let digits = rest.dropFirst(separator.count)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), digits.first != "0",
            let number = Int(digits)
        else { return nil }
        return ShardIndex.ShardID(protection, number)
    }

    /// The protection class of any group's shard at `collection`: group labels never hold a
    /// literal `~` (it is escaped `_7e` in the label, `_5f7e` in the path), so a `_7eck` or
    /// `_7edk` in the path is a class suffix. Nil for collections that are not shards.
    static func protection(ofShard collection: String) -> ProtectionClass? {
        let prefix = collectionPrefix + "group_2d"
        guard collection.hasPrefix(prefix) else { return nil }
        let element = collection.dropFirst(collectionPrefix.count)
        if element.contains("_7eck") { return .untilFirstUnlock }
        if element.contains("_7edk") { return ProtectionClass.none }
        return .untilUnlocked
    }

    /// The collection an item path belongs to (`.../collection/login/12` -> `.../collection/login`).
    static func collection(ofItem path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[..<slash])
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    // MARK: Cache

    func cachedPath(for shard: Shard) -> String? {
        state.withLock { $0.paths[shard] }
    }

    func remember(_ path: String, for shard: Shard) {
        state.withLock { $0.paths[shard] = path }
    }

    /// Forgets every shard of `group` (its collections were deleted), and where its items were.
    func forget(_ group: String) {
        state.withLock { state in
            for shard in state.paths.keys where shard.group == group {
                if let path = state.paths.removeValue(forKey: shard) { state.unlocked.remove(path) }
            }
            state.items = state.items.filter { $0.key.group != group }
        }
    }

    // MARK: Where items were seen

    /// Above this many, the item paths start afresh (a hint, never the only way to an item).
    static let itemPathLimit = 100_000

    /// The path `key`'s item had when this store last saw it, if it did.
    func itemPath(of key: PrimaryKey) -> String? {
        state.withLock { $0.items[key] }
    }

    /// Records where items are now.
    func rememberItems<S: Sequence>(_ located: S) where S.Element == (key: PrimaryKey, path: String) {
        state.withLock { state in
            for (key, path) in located {
                if state.items.count >= Self.itemPathLimit { state.items.removeAll(keepingCapacity: true) }
                state.items[key] = path
            }
        }
    }

    /// Forgets where `key`'s item was (deleted, or not found there).
    func forgetItem(_ key: PrimaryKey) {
        _ = state.withLock { $0.items.removeValue(forKey: key) }
    }

    // MARK: Seen unlocked

    /// Whether `collection` was seen unlocked while daemon `epoch` ran.
    func wasUnlocked(_ collection: String, epoch: String?) -> Bool {
        state.withLock { state in state.epoch == epoch && state.unlocked.contains(collection) }
    }

    /// Records collections seen unlocked under daemon `epoch`; a new epoch forgets the old set.
    func noteUnlocked<S: Sequence>(_ collections: S, epoch: String?) where S.Element == String {
        state.withLock { state in
            Self.enter(epoch, &state)
            state.unlocked.formUnion(collections)
        }
    }

    private static func enter(_ epoch: String?, _ state: inout State) {
        guard state.epoch != epoch else { return }
        state.epoch = epoch
        state.unlocked.removeAll()
        state.foreignCheck = nil
    }

    // MARK: Other clients' items

    /// Whether the default collection held items of other clients at the last look, if that
    /// look was under daemon `epoch` and less than `interval` seconds ago; nil: look again.
    func foreignItemsPresent(epoch: String?, within interval: Double) -> Bool? {
        state.withLock { state in
            guard state.epoch == epoch, let check = state.foreignCheck else { return nil }
            // In seconds as a Double: any interval (huge, infinite, NaN) compares, none traps.
            let elapsed = (ContinuousClock.now - check.at).components
            guard Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18 < interval else { return nil }
            return check.present
        }
    }

    func noteForeignItems(present: Bool, epoch: String?) {
        state.withLock { state in
            Self.enter(epoch, &state)
            state.foreignCheck = (ContinuousClock.now, present)
        }
    }
}

extension CollectionDirectory {
    /// A collection's name for messages: the last path element with `_xx` escapes decoded
    /// (`.../collection/group_2dABC` -> `group-ABC`), or `default` for the alias.
    static func displayName(of path: String) -> String {
        if path == defaultAlias { return "default" }
        let element = path.split(separator: "/").last.map(String.init) ?? path
        var bytes: [UInt8] = []
        var utf8 = Array(element.utf8)[...]
        while let byte = utf8.first {
            if byte == UInt8(ascii: "_"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.dropFirst().prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
                utf8 = utf8.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
