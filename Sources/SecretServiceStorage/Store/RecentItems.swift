import Foundation
import KeychainStorage
import Synchronization

/// The items a store read or wrote in each group, kept while nothing can have changed them: the
/// group's version (in its lock file, ``LockFileWords``) still the one they were seen at, and
/// they are younger than ``SecretServiceStore/Configuration/foreignItemsRecheckInterval`` (a
/// client other than SharedKeychain, which does not move the version, is seen within that).
///
/// Every holder of a group's lock makes the version odd before it changes anything and even,
/// and new, before it lets go. So an item read from the daemon between two equal, even version
/// readings is the group's current item for as long as the version stays so; an item this
/// store wrote under the lock is current once the version it ended the hold with stands.
/// MSAL's sign-in reads the client's account-metadata item and then updates it, and updates
/// the app metadata it wrote at the last sign-in: with one app at work, each of those reads
/// (the account metadata holds an entry per account, hundreds of kilobytes at a few thousand)
/// costs no call to the daemon.
final class RecentItems: Sendable {
    /// One item as it was seen, and when.
    struct Entry: Sendable {
        let path: String
        let envelope: ItemEnvelope
        /// Whether this store added the item (rather than read or updated it).
        var added = false
        var seen = ContinuousClock.now
    }

    private struct Group {
        var version: UInt32
        var entries: [PrimaryKey: Entry] = [:]
        /// The keys of the kept items this store added, oldest first.
        var added: [PrimaryKey] = []

        /// Keeps `entry` at `key`; of the items this store added, only the newest
        /// ``RecentItems/addedLimit``.
        mutating func keep(_ entry: Entry?, at key: PrimaryKey) {
            entries[key] = entry
            guard entry?.added == true else { return }
            added.append(key)
            guard added.count > RecentItems.addedLimit else { return }
            let oldest = added.removeFirst()
            // Read or updated since it was added (or added again, later in the list): kept.
            if oldest != key, entries[oldest]?.added == true, !added.contains(oldest) { entries[oldest] = nil }
        }
    }

    /// Groups kept at most; past it, one is dropped.
    static let groupLimit = 64
    /// Items kept per group at most; past it, the group starts afresh.
    static let itemLimit = 4_096
    /// Items this store added kept per group at most, the newest: MSAL's sign-in rereads the
    /// items it reads and updates (the account and app metadata), while a `restore` or a
    /// `cache import` adds thousands of items it never reads back (a restore of 2,000 items
    /// kept every one, 4 MB, half its heap).
    static let addedLimit = 64

    private let groups = Mutex<[String: Group]>([:])

    /// The entries of `keys` in `group`, when every one was seen at `version` no longer than
    /// `maxAge` seconds ago; nil otherwise.
    func entries(_ keys: [PrimaryKey], in group: String, at version: UInt32, maxAge: Double) -> [Entry]? {
        let now = ContinuousClock.now
        return groups.withLock { groups in
            guard let kept = groups[group], kept.version == version else { return nil }
            var found: [Entry] = []
            for key in keys {
                guard let entry = kept.entries[key], Self.seconds(now - entry.seen) < maxAge else { return nil }
                found.append(entry)
            }
            return found
        }
    }

    /// Records items current at `version` (what was kept at another version is dropped first).
    func remember(_ seen: [(key: PrimaryKey, entry: Entry)], in group: String, at version: UInt32) {
        guard !seen.isEmpty else { return }
        groups.withLock { groups in
            if groups[group] == nil, groups.count >= Self.groupLimit, let dropped = groups.keys.first { groups[dropped] = nil }
            // Changed in place: a copy would copy every entry kept.
            if groups[group]?.version != version { groups[group] = Group(version: version) }
            if let count = groups[group]?.entries.count, count + seen.count > Self.itemLimit { groups[group] = Group(version: version) }
            for (key, entry) in seen { groups[group]?.keep(entry, at: key) }
        }
    }

    /// After a hold of `group`'s lock that began at version `start` and ended at `end`, with
    /// `changes` made under it (nil: deleted): what was kept at `start` stands at `end`, the
    /// changes applied. Kept at another version, only the changes stand.
    func advance(_ group: String, from start: UInt32, to end: UInt32, changes: [PrimaryKey: Entry?]) {
        groups.withLock { groups in
            if groups[group]?.version != start { groups[group] = Group(version: end) }
            groups[group]?.version = end
            // Within the limit, as what is read: a restore of 10,000 items, one hold each, once
            // kept every item it wrote, data included.
            if let count = groups[group]?.entries.count, count + changes.count > Self.itemLimit { groups[group] = Group(version: end) }
            for (key, entry) in changes { groups[group]?.keep(entry, at: key) }
        }
    }

    /// Forgets everything kept of `group`.
    func forget(_ group: String) {
        _ = groups.withLock { $0.removeValue(forKey: group) }
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// What one hold of group locks changed, for ``RecentItems``: the version each group had when
/// the hold began, and the items written or deleted under it. Bound to the holding thread for
/// the hold (``SecretServiceStore/currentHold``).
final class LockHold: Sendable {
    let startVersions: [String: UInt32]
    private let changed = Mutex<[String: [PrimaryKey: RecentItems.Entry?]]>([:])

    init(startVersions: [String: UInt32]) {
        self.startVersions = startVersions
    }

    /// Notes that `key` now holds `entry` (nil: deleted).
    func note(_ key: PrimaryKey, _ entry: RecentItems.Entry?) {
        changed.withLock { $0[key.group, default: [:]][key] = .some(entry) }
    }

    /// The changes noted in `group`.
    func changes(in group: String) -> [PrimaryKey: RecentItems.Entry?] {
        changed.withLock { $0[group] ?? [:] }
    }

    /// What this hold wrote at `key`: nil when it did not touch it, `.some(nil)` when it deleted it.
    func entry(_ key: PrimaryKey) -> RecentItems.Entry?? {
        changed.withLock { $0[key.group]?[key] }
    }
}
