import CLibsecret
import Foundation
import KeychainStorage
import Logging
import Synchronization

/// Generic-password items in a Secret Service (gnome-keyring, KeePassXC, ...) through libsecret.
///
/// Each ``StoredItem`` is one Secret Service item with the searchable string attributes
/// `access-group`, `account`, `service`, `generic` (base64), `type` and `creator` (decimal) and
/// `sharedkeychain:added-by` (the emulator's provenance) (the last four absent when nil), `accessible` (Apple's class value, absent for the default
/// `whenUnlocked`), plus `xdg:schema` = `org.sharedkeychain.GenericPassword`.
/// Its label is the item's label, or "account @ service". The secret is an ``ItemEnvelope``
/// holding the whole record, so listing N items costs a path search per shard searched (or one
/// service-wide search) and ONE `GetSecrets`, never one D-Bus proxy per item. In the per-group
/// layout a group spreads over shards (``Layout/collectionPerGroup(masterPassword:)``).
///
/// - Atomicity: `add`, `update` and `delete` run under an exclusive `flock` per access group in
///   ``Configuration/lockDirectory``, so "check the key, then create" holds across threads and
///   processes that share the directory.
/// - Locked collections are ``StorageError/locked(collection:)``, never an empty result. In the
///   ``Layout/collectionPerGroup(masterPassword:)`` layout, a group collection found locked the
///   first time this store meets it during a run of the daemon (as after a restart) is unlocked
///   with the master password; one locked again later stays `.locked`.
/// - Each call is bounded by ``Configuration/timeout`` (``StorageError/timedOut(operation:seconds:)``).
///   A call that timed out may still complete in the daemon later.
/// - When the daemon restarted (stale session), the store reconnects and retries once.
/// - Thread-safe: one store may serve many threads.
/// - Watchable: ``watch(groups:)`` reports changes made by any process, from the daemon's signals.
public final class SecretServiceStore: ItemStore, ReconnectReporting {
    /// `secret-service`.
    public let name = "secret-service"
    /// How this store reaches its Secret Service.
    public let configuration: Configuration

    let client: SecretServiceClient
    let directory = CollectionDirectory()
    /// Items read or written, kept while their group's version stands.
    let recent = RecentItems()
    let locks: GroupLocks
    let indexes: ShardIndexFiles
    var logger: Logger { configuration.logger }
    private let reconnectCount = Atomic<Int>(0)
    /// How many censuses of a shard index this store made (each counts every shard of a group):
    /// what a kept census stamp saves.
    let censusCount = Atomic<Int>(0)
    /// How many items' secrets this store's reads asked the daemon for: what a search that
    /// narrows a query down first saves.
    let secretsRequested = Atomic<Int>(0)
    /// The census stamp this store last wrote for each group: a write that would write the same
    /// again is skipped without reading the file back.
    let stampsWritten = Mutex<[String: CensusStamp]>([:])

    /// How often this store reconnected after the daemon restarted or vanished.
    public var reconnects: Int { reconnectCount.load(ordering: .relaxed) }

    /// The device's answer to access-control prompts, from the configuration.
    public var userAuthentication: AuthenticationProvider? { configuration.userAuthentication }

    /// Prepares a store; it connects on first use. Fails only when the configuration names a
    /// bus other than the one this process already uses.
    public init(configuration: Configuration = Configuration()) throws(StorageError) {
        try SessionBus.select(address: configuration.busAddress)
        self.configuration = configuration
        client = SecretServiceClient(timeout: configuration.timeout, secretsBatch: configuration.secretsBatch, logger: configuration.logger)
        locks = GroupLocks(directory: configuration.lockDirectory, waitLimit: configuration.lockTimeout)
        indexes = ShardIndexFiles(locks: locks)
    }

    // MARK: ItemStore

    /// Adds `item` under its group's lock: one search for the key (``StorageError/duplicateItem(_:)``
    /// when taken), then CreateItem; in the per-group layout the group's collection is created
    /// first when missing.
    public func add(_ item: StoredItem) throws(StorageError) {
        try holdingLocks([item.group]) { () throws(StorageError) in
            // Numbered under the lock, so insertion order is the order adds got the lock.
            let envelope = ItemEnvelope(item: item, sequence: InsertionClock.next())
            try perform("add") { service in
                let found = try holders(of: item.primaryKey, service)
                if let locked = found.locked.first {
                    try handleLocked(CollectionDirectory.collection(ofItem: locked), service)
                }
                guard found.unlocked.isEmpty else { throw StorageError.duplicateItem(item.primaryKey) }
                var shard = ShardID(.untilUnlocked, 0)
                if configuration.layout.masterPassword != nil {
                    let protection = item.accessibility.protection
                    if let state = configuration.deviceLock?(), !state.allows(protection) {
                        throw StorageError.deviceLocked(protection)
                    }
                    // Recorded before the item exists: a crash leaves a record of nothing, never
                    // an item the index cannot find.
                    var index = try writerIndex(for: item.group, service)
                    if index.shards[ShardIndex.Key(item.primaryKey)] != nil {
                        // A record of this key though no item holds it: a crash's leftover, or a
                        // synchronizable twin indexed before keys had variants. Rebuilt, so the
                        // new record takes no other item's place.
                        index = try rebuildIndex(item.group, because: nil, service)
                    }
                    shard = index.shardForNewItem(capacity: configuration.shardCapacity, protection: protection)
                    try indexes.append([.place(ShardIndex.Key(item.primaryKey), shard: shard)], to: item.group)
                }
                let collection = try writableCollection(for: item.group, shard: shard, service)
                noteWritten(envelope, at: try create(envelope, in: collection, replace: false, service), added: true)
            }
        }
    }

    /// One path search per group, then one GetSecrets for every match; in creation order across
    /// groups (insertion order within one), then cut to `limit`.
    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        if let limit, limit <= 0 { return [] }
        return try perform("search") { service in
            let items = try fetch(query, writing: false, service).map(\.envelope.item)
            guard let limit else { return items }
            return Array(items.prefix(limit))
        }
    }

    /// Applies `change` under the locks of the query's groups, checked first with ``UpdatePlan``.
    /// An update the groups' indexes show to match nothing returns 0 without the locks: it
    /// changes nothing, so, like a read, it needs no lock (MSAL writes every item update first,
    /// then add, so every new item costs such an update).
    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        if try perform("update", { service in try indexesRecordNoMatch(for: query, service) }) { return 0 }
        return try holdingLocks(query.groups) { () throws(StorageError) -> Int in
            try perform("update") { service in
                let fetched = try fetch(query, writing: true, service)
                guard !fetched.isEmpty else { return 0 }
                let matched = fetched.map(\.envelope.item)
                let taken = try keysTaken(by: change, from: matched, at: date, service)
                let plan = try UpdatePlan(matched: matched, change: change, at: date) { key in taken.contains(key) }
                try apply(plan, to: fetched, service)
                return plan.replacements.count
            }
        }
    }

    /// Deletes matches under the locks of the query's groups: item by item, or (per-group layout,
    /// whole groups) by deleting each group's collection in one call.
    public func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try holdingLocks(query.groups) { () throws(StorageError) -> Int in
            try perform("delete") { service in
                var deleted = 0
                for group in Self.unique(query.groups) {
                    if configuration.layout.masterPassword != nil && query.selectsWholeGroups {
                        deleted += try deleteWholeGroup(group, service)
                        continue
                    }
                    var removed: [ShardIndex.Record] = []
                    for record in try fetch(query.restricted(to: [group]), writing: true, service) where try deleteItem(record.path, service) {
                        deleted += 1
                        removed.append(.remove(ShardIndex.Key(record.envelope.item.primaryKey)))
                        noteDeleted(record.envelope.item.primaryKey)
                    }
                    // The items are gone whatever happens to the record: a failure to write it is repaired later.
                    if configuration.layout.masterPassword != nil { recordAfterChange(removed, in: group) }
                }
                return deleted
            }
        }
    }

    // MARK: Holding group locks

    /// The hold of group locks the current thread is in, if any (``holdingLocks(_:_:)``).
    @TaskLocal static var currentHold: LockHold?

    /// Runs `body` holding the locks of `groups`, with each group's version made odd for the
    /// hold and even, and new, at its end (``GroupLocks/beginChange(of:)``): what ``recent``
    /// keeps of a group stands through a hold that succeeds, with the hold's changes applied,
    /// and is forgotten after one that fails part-way. The wait for the locks and the calls
    /// made under them share one deadline: a call does not get its whole limit again after
    /// waiting out most of it for a lock.
    func holdingLocks<T>(_ groups: [String], _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try CallDeadline.operation(seconds: max(configuration.timeout, configuration.lockTimeout)) { () throws(StorageError) -> T in
            try holdingLocksNow(groups, body)
        }
    }

    private func holdingLocksNow<T>(_ groups: [String], _ body: () throws(StorageError) -> T) throws(StorageError) -> T {
        try locks.withLocks(groups) { () throws(StorageError) -> T in
            var starts: [String: UInt32] = [:]
            for group in Set(groups) {
                if let start = locks.beginChange(of: group) { starts[group] = start } else { recent.forget(group) }
            }
            let hold = LockHold(startVersions: starts)
            let outcome = Self.$currentHold.withValue(hold) { Result { () throws(StorageError) -> T in try body() } }
            for (group, start) in starts {
                let end = locks.endChange(of: group)
                if case .success = outcome, let end {
                    recent.advance(group, from: start, to: end, changes: hold.changes(in: group))
                    restampAfterHold(group)
                } else {
                    recent.forget(group)
                }
            }
            return try outcome.get()
        }
    }

    // MARK: Maintenance

    /// Locks the collections holding `groups`' items (for tests and `keyring lock`). Until they
    /// are unlocked, operations on those groups fail with ``StorageError/locked(collection:)``.
    public func lock(groups: [String]) throws(StorageError) {
        try perform("lock") { service in
            var collections = Set<String>()
            for group in Self.unique(groups) {
                if configuration.layout.masterPassword != nil {
                    collections.formUnion(try shardCollections(of: group, service))
                }
                let found = try client.searchPaths(
                    service, attributes: ItemAttributes.matching(ItemQuery(groups: [group]), in: group))
                collections.formUnion(found.unlocked.map(CollectionDirectory.collection(ofItem:)))
            }
            try client.lock(service, paths: collections.sorted())
        }
    }

    /// Locks, in gnome-keyring, every shard of every group that holds items of `classes`
    /// (per-group layout): what a device lock does, so that no client, `secret-tool`
    /// included, can read those items until a store the device allows unlocks them again.
    /// `groups` limits it to those groups' shards (nil: every group). Returns how many
    /// collections it locked.
    @discardableResult
    public func lockShards(of classes: Set<ProtectionClass>, groups: [String]? = nil) throws(StorageError) -> Int {
        guard configuration.layout.masterPassword != nil, !classes.isEmpty else { return 0 }
        return try perform("lock") { service in
            let shards = try client.collectionPaths(service).filter { path in
                guard let protection = CollectionDirectory.protection(ofShard: path), classes.contains(protection) else { return false }
                return groups.map { $0.contains { CollectionDirectory.shardID(of: path, group: $0) != nil } } ?? true
            }
            try client.lock(service, paths: shards.sorted())
            return shards.count
        }
    }

    /// The object path of `group`'s first shard in the per-group layout, looked up afresh; nil
    /// when it does not exist or the layout has none.
    public func collectionPath(forGroup group: String) throws(StorageError) -> String? {
        guard configuration.layout.masterPassword != nil else { return nil }
        return try perform("find collection") { service in
            try resolveCollection(Shard(group: group, id: ShardID(.untilUnlocked, 0)), creatingWith: nil, useCache: false, service)
        }
    }

    /// The object paths of every shard of `group` in the per-group layout (empty in the others).
    public func collectionPaths(forGroup group: String) throws(StorageError) -> [String] {
        guard configuration.layout.masterPassword != nil else { return [] }
        return try perform("find collections") { service in try shardCollections(of: group, service) }
    }

    // MARK: Operation runner

    /// Signals that the body changed the keyring's state (unlocked a collection, dropped a stale
    /// path) and must run again from the start.
    struct RetryOperation: Error {}

    /// Runs `body` with the connected service: reconnects and retries once when the daemon
    /// restarted or vanished, re-runs after an unlock, and maps every failure to a StorageError.
    /// The whole operation, retries included, gets ``Configuration/timeout``.
    func perform<T>(_ operation: String, _ body: (ServiceHandle) throws -> T) throws(StorageError) -> T {
        try CallDeadline.operation(seconds: configuration.timeout) { () throws(StorageError) -> T in
            try performRetrying(operation, body)
        }
    }

    private func performRetrying<T>(_ operation: String, _ body: (ServiceHandle) throws -> T) throws(StorageError) -> T {
        var service: ServiceHandle?
        var reconnected = false
        var reruns = 0
        while true {
            do {
                let current = try service ?? client.current()
                service = current
                return try body(current)
            } catch let failure as GLibFailure {
                guard !reconnected, [.staleSession, .serviceMissing, .connectionClosed].contains(failure.kind) else {
                    throw map(failure, operation)
                }
                reconnected = true
                reconnectCount.add(1, ordering: .relaxed)
                logger.debug(
                    "Secret Service call failed; reconnecting once",
                    metadata: ["operation": "\(operation)", "call": "\(failure.call)", "reason": "\(failure.message)"])
                do {
                    service = try reconnect(after: failure, replacing: service)
                } catch {
                    throw map(error, operation)
                }
            } catch is RetryOperation {
                reruns += 1
                guard reruns <= 8 else {
                    throw .backend(
                        domain: "shared-keychain", code: 0,
                        message: "\(operation): the keyring kept changing under the operation; gave up after \(reruns) attempts")
                }
            } catch let error as StorageError {
                throw error
            } catch {
                throw .backend(domain: "shared-keychain", code: 0, message: "\(operation): \(error)")
            }
        }
    }

    /// Fails with a stale session (so ``perform(_:_:)`` reconnects and runs the operation again)
    /// when the Secret Service is no longer the daemon `service` opened its session with.
    func ensureSameDaemon(_ service: ServiceHandle) throws(GLibFailure) {
        let owner = try client.nameOwner(service)
        guard owner == service.owner else {
            throw GLibFailure(call: "GetNameOwner", message: "the Secret Service restarted", kind: owner == nil ? .serviceMissing : .staleSession)
        }
    }

    /// Connects again after `failure`. When the service has gone from the bus, found by the
    /// failed call or by the reconnection itself, and the configuration may restart it (the
    /// private keyring's daemon), it is started again first.
    private func reconnect(after failure: GLibFailure, replacing stale: ServiceHandle?) throws(GLibFailure) -> ServiceHandle {
        if failure.kind == .serviceMissing { try restartService() }
        do {
            return try client.reconnect(replacing: stale)
        } catch where error.kind == .serviceMissing && configuration.restartService != nil && failure.kind != .serviceMissing {
            try restartService()
            return try client.reconnect(replacing: stale)
        }
    }

    private func restartService() throws(GLibFailure) {
        guard let restart = configuration.restartService else { return }
        do { try restart() } catch {
            throw GLibFailure(call: "restart", message: "the Secret Service is gone and could not be started again: \(error)", kind: .serviceMissing)
        }
        logger.debug("started the Secret Service again", metadata: ["bus": "\(SessionBus.address)"])
    }

    private func map(_ failure: GLibFailure, _ operation: String) -> StorageError {
        switch failure.kind {
        case .timedOut:
            return .timedOut(operation: "\(operation) (\(failure.call))", seconds: configuration.timeout)
        case .serviceMissing:
            return .unavailable(
                "no Secret Service (org.freedesktop.secrets) on the D-Bus session bus at \(SessionBus.address): \(Remedy.startSecretService), or install gnome-keyring (Debian package gnome-keyring)"
            )
        case .connectionClosed:
            return .unavailable(
                "the connection to the D-Bus session bus at \(SessionBus.address) closed (did the bus stop?); GLib cannot reopen it in this process: \(Remedy.restartKeyringAndProcess)"
            )
        case .busUnavailable:
            return .unavailable(
                "no D-Bus session bus (\(failure.message)): \(Remedy.startPrivateKeyring) and use its bus address, or run inside a desktop session (Debian packages dbus-daemon and gnome-keyring)"
            )
        case .locked:
            return .locked(collection: "(unknown)")
        case .staleSession, .noSuchObject, .other:
            return .backend(domain: failure.domain, code: failure.code, message: "\(failure.call): \(failure.message)")
        }
    }
}
