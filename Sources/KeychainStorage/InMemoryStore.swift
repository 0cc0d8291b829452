import Foundation
import OrderedCollections
import Synchronization

/// Items kept in this process's memory. Thread-safe, with the same semantics as the Secret
/// Service backend: for fast tests, and to measure the emulator's own overhead. Watchable
/// (``ItemWatching``): every add, update and delete is reported to the watches of its group.
public final class InMemoryStore: ItemStore, ItemWatching {
    public let name = "memory"

    /// An item's primary key (its group included, though each group has its own table).
    private typealias Key = PrimaryKey

    /// Per group, items in creation order. A lookup by full primary key is one hash probe.
    private let groups = Mutex<[String: OrderedDictionary<Key, StoredItem>]>([:])
    /// Published under the `groups` lock, so watches see changes in the order they were made.
    private let hub = ItemEventHub()

    /// The device's lock state, asked on every operation; nil: no device, nothing is locked.
    private let deviceLock: DeviceLockProvider?
    /// The device's answer to access-control prompts; nil: no device, which always allows.
    public let userAuthentication: AuthenticationProvider?

    /// - Parameters:
    ///   - deviceLock: the device whose lock protects items by their accessibility class: any
    ///     operation that would read, change or delete an item the device protects now, or add
    ///     one, is ``StorageError/locked(collection:)``, as the Secret Service store with real
    ///     locked collections.
    ///   - userAuthentication: what the device answers when an item's access control asks the
    ///     user (``ItemStore/userAuthentication``).
    public init(deviceLock: DeviceLockProvider? = nil, userAuthentication: AuthenticationProvider? = nil) {
        self.deviceLock = deviceLock
        self.userAuthentication = userAuthentication
    }

    /// Fails when the device protects any of `items` now.
    private func checkAccess<S: Sequence>(_ items: S) throws(StorageError) where S.Element == StoredItem {
        guard let state = deviceLock?() else { return }
        for item in items where !state.allows(item.accessibility.protection) {
            throw .deviceLocked(item.accessibility.protection)
        }
    }

    /// Watches `groups`: events are published as each add, update and delete is made, by any
    /// thread using this store. The events' time is when the change was made.
    public func watch(groups watched: [String]) -> ItemWatch {
        groups.withLock { groups in
            let count = Set(watched).reduce(0) { $0 + (groups[$1]?.count ?? 0) }
            return hub.subscribe(groups: watched, initialItemCount: count)
        }
    }

    public func add(_ item: StoredItem) throws(StorageError) {
        try groups.withLock { (groups) throws(StorageError) in
            let key = item.primaryKey
            guard groups[item.group]?[key] == nil else { throw .duplicateItem(item.primaryKey) }
            try checkAccess([item])
            groups[item.group, default: [:]][key] = item
            if !hub.isEmpty { hub.publish([ItemEvent(.created, item, at: Date())]) }
        }
    }

    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try groups.withLock { (groups) throws(StorageError) -> [StoredItem] in
            guard deviceLock != nil else { return Self.matches(of: query, in: groups, limit: limit) }
            // Every match counts, not only those within the limit: a protected item is never
            // silently left out.
            let all = Self.matches(of: query, in: groups, limit: nil)
            try checkAccess(all)
            guard let limit else { return all }
            return Array(all.prefix(max(limit, 0)))
        }
    }

    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try groups.withLock { (groups) throws(StorageError) -> Int in
            let matched = Self.matches(of: query, in: groups, limit: nil)
            try checkAccess(matched)
            let plan = try UpdatePlan(matched: matched, change: change, at: date) { key in
                groups[key.group]?[key] != nil
            }
            // A change of class may move an item under a protection the device enforces now.
            try checkAccess(plan.replacements.map(\.new))
            for (old, new) in plan.replacements {
                let oldKey = old.primaryKey
                let newKey = new.primaryKey
                if oldKey == newKey {
                    groups[old.group]?[oldKey] = new
                } else {
                    groups[old.group]?.removeValue(forKey: oldKey)
                }
            }
            // Re-keyed items are inserted after every removal, so a swap of two keys works.
            for (old, new) in plan.replacements where old.primaryKey != new.primaryKey {
                groups[new.group, default: [:]][new.primaryKey] = new
            }
            if !hub.isEmpty {
                let now = Date()
                hub.publish(plan.replacements.map { ItemEvent(.changed, $0.new, at: now) })
            }
            return plan.replacements.count
        }
    }

    public func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try groups.withLock { (groups) throws(StorageError) -> Int in
            if deviceLock != nil {
                for group in query.groups { try checkAccess(groups[group]?.values.filter { query.matches($0) } ?? []) }
            }
            var deleted = 0
            // Built only while someone watches.
            let watched = !hub.isEmpty
            var gone: [StoredItem] = []
            for group in query.groups {
                guard let items = groups[group] else { continue }
                if query.selectsWholeGroups {
                    deleted += items.count
                    if watched { gone += items.values }
                    groups[group] = nil
                    continue
                }
                let kept = items.filter { !query.matches($0.value) }
                deleted += items.count - kept.count
                if watched { gone += items.values.filter { query.matches($0) } }
                groups[group] = kept
            }
            if watched {
                let now = Date()
                hub.publish(gone.map { ItemEvent(.deleted, $0, at: now) })
            }
            return deleted
        }
    }

    private static func matches(
        of query: ItemQuery,
        in groups: [String: OrderedDictionary<Key, StoredItem>],
        limit: Int?
    ) -> [StoredItem] {
        let limit = limit ?? Int.max
        // Across several groups creation order decides which matches come first, so the limit
        // is applied after sorting; within one group, insertion order is creation order.
        let groupLimit = query.groups.count > 1 ? Int.max : limit
        var found: [StoredItem] = []
        for group in query.groups {
            guard let items = groups[group], found.count < groupLimit else { continue }
            // Account and service name at most two generic passwords: the local and the
            // synchronizable one (internet passwords have no service, so an empty one is searched).
            if let account = query.account, let service = query.service, !service.isEmpty {
                let indices = [false, true].compactMap { items.index(forKey: Key(group: group, account: account, service: service, synchronizable: $0)) }
                for index in indices.sorted() where query.matches(items.values[index]) && found.count < groupLimit {
                    found.append(items.values[index])
                }
                continue
            }
            for item in items.values where query.matches(item) {
                found.append(item)
                if found.count == groupLimit { break }
            }
        }
        // Across groups, creation order decides, as it does for every backend.
        if query.groups.count > 1 {
            found.sort { $0.creationDate < $1.creationDate }
            if found.count > limit { found.removeSubrange(limit...) }
        }
        return found
    }
}
