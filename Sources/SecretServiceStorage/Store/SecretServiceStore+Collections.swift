import CLibsecret
import Foundation
import KeychainStorage

/// Where a group's items live and whether their collections are locked: the group's shards
/// (collections found by the label gnome-keyring derives their path from, created with the
/// master password when missing), the shard index that says which shard holds an item, and the
/// unlock after a daemon restart.
extension SecretServiceStore {
    typealias Shard = CollectionDirectory.Shard
    typealias ShardID = ShardIndex.ShardID

    /// Above this many shards, a query naming neither account nor service searches the whole
    /// service once instead of each shard.
    static let shardSearchLimit = 8

    // MARK: Shards of a group

    /// Where a new item of `group` goes, and (per-group layout) the shard it is recorded in.
    func writableCollection(for group: String, shard: ShardID, _ service: ServiceHandle) throws -> String {
        guard let master = configuration.layout.masterPassword else { return configuration.layout.sharedCollection }
        guard let path = try resolveCollection(Shard(group: group, id: shard), creatingWith: master, useCache: true, service) else {
            throw GLibFailure(call: "CreateWithMasterPassword", message: "no collection for access group '\(group)'")
        }
        return path
    }

    /// Where to look for `attributes` in `group`: the shards that may hold them, searched one
    /// by one, or (`serviceWide`, a group-wide query over many shards) one search of the whole
    /// service, kept to `collections`, the group's shards.
    struct SearchPlan {
        var collections: [String]
        var serviceWide: Bool
    }

    /// The plan for `attributes` in `group`; nil for layouts without shards (one service-wide
    /// search). `writing`: the caller holds the group's lock, and a missing index is built from
    /// the keyring first. Either way the index is checked against the keyring first
    /// (``trustedIndex(for:lockHeld:_:)``).
    func searchPlan(_ attributes: [String: String], group: String, writing: Bool, exactKey: PrimaryKey? = nil, _ service: ServiceHandle) throws
        -> SearchPlan?
    {
        guard configuration.layout.masterPassword != nil else { return nil }
        let shards: [ShardID]
        if let index = try trustedIndex(for: group, lockHeld: writing, service) {
            // A query that names a whole key (the synchronizable flag included) needs only that
            // item's shard, not its twin's, which the device may keep shut. Without a record of
            // it (a synchronizable item indexed before keys had variants) every shard of the
            // account and service may hold it.
            shards = exactKey.flatMap { index.shards[ShardIndex.Key($0)] }.map { [$0] }
                ?? index.candidateShards(account: attributes[ItemAttributes.account], service: attributes[ItemAttributes.service])
        } else {
            // Not indexed yet (written before shards existed): every shard it has.
            shards = try discoverShards(of: group, service).map(\.id)
        }
        // A shard the device protects now may hold a match: the answer would be incomplete.
        if let state = configuration.deviceLock?(), let protected = shards.first(where: { !state.allows($0.protection) }) {
            throw StorageError.deviceLocked(protected.protection)
        }
        var paths: [String] = []
        for shard in shards {
            if let path = try resolveCollection(Shard(group: group, id: shard), creatingWith: nil, useCache: true, service) {
                paths.append(path)
            }
        }
        return SearchPlan(collections: paths, serviceWide: paths.count > Self.shardSearchLimit)
    }

    /// Unlocks, once per run of the daemon, the collections this store has not seen unlocked
    /// yet. gnome-keyring's searches leave out the items of a collection that has been locked
    /// since the daemon loaded it (they are not even listed as locked), so a search must not
    /// meet one; a collection locked later still lists its items, and shows as `.locked`.
    func ensureUnlocked(_ collections: [String], _ service: ServiceHandle) throws {
        let unseen = collections.filter { !directory.wasUnlocked($0, epoch: service.owner) }
        guard !unseen.isEmpty else { return }
        let locked = try unseen.filter { try isLocked($0, service) }
        if !locked.isEmpty { try handleLocked(locked, service) }
        directory.noteUnlocked(unseen, epoch: service.owner)
    }

    /// The group's shard index, as a writer (holding the group's lock) sees it: checked against
    /// the keyring, and built from it when the group has no index file yet.
    func writerIndex(for group: String, _ service: ServiceHandle) throws -> ShardIndex {
        try trustedIndex(for: group, lockHeld: true, service) ?? rebuildIndex(group, because: nil, service)
    }

    /// The group's shards that exist in the keyring, by their paths (one call).
    func discoverShards(of group: String, _ service: ServiceHandle) throws -> [Shard] {
        var shards = Set<ShardID>()
        for path in try client.collectionPaths(service) {
            if let id = CollectionDirectory.shardID(of: path, group: group) { shards.insert(id) }
        }
        // Shard 0 may sit at a `_N` sibling path (its name was taken when it was made).
        let first = ShardID(.untilUnlocked, 0)
        if !shards.contains(first), try resolveCollection(Shard(group: group, id: first), creatingWith: nil, useCache: true, service) != nil {
            shards.insert(first)
        }
        return shards.sorted().map { Shard(group: group, id: $0) }
    }

    /// Every shard collection of `group` that exists in the keyring (one call).
    func shardCollections(of group: String, _ service: ServiceHandle) throws -> [String] {
        var paths: [String] = []
        for shard in try discoverShards(of: group, service) {
            if let path = try resolveCollection(shard, creatingWith: nil, useCache: true, service) { paths.append(path) }
        }
        return paths
    }

    /// The shard of an item of `group` at `path`.
    func shardID(ofItem path: String, group: String) -> ShardID {
        // Not a shard path: shard 0 at a `_N` sibling path.
        CollectionDirectory.shardID(of: CollectionDirectory.collection(ofItem: path), group: group) ?? ShardID(.untilUnlocked, 0)
    }

    /// The collection whose lock decides whether `group`'s items can be seen when a search
    /// found nothing: shard 0 (per-group layout), else the shared collection.
    func relevantCollection(for group: String) -> String {
        guard configuration.layout.masterPassword != nil else { return configuration.layout.sharedCollection }
        return directory.cachedPath(for: Shard(group: group, id: ShardID(.untilUnlocked, 0)))
            ?? CollectionDirectory.expectedPath(forLabel: CollectionDirectory.label(for: group))
    }

    /// Finds the collection of `shard` (shard 0: at the path gnome-keyring derives from its
    /// label, else among `<path>_N` siblings it makes when the name was taken), creating it when
    /// `master` is given.
    func resolveCollection(
        _ shard: Shard, creatingWith master: String?, useCache: Bool, _ service: ServiceHandle
    ) throws -> String? {
        if useCache, let cached = directory.cachedPath(for: shard) { return cached }
        let label = CollectionDirectory.label(for: shard.group, shard: shard.id)
        let expected = CollectionDirectory.expectedPath(forLabel: label)
        let isFirst = shard.id == ShardID(.untilUnlocked, 0)
        // Other shards are only ever made at their expected path (see below): to read one, no
        // need to ask; one that is gone searches as empty.
        if !isFirst && master == nil && useCache { return expected }
        var candidates = [expected]
        if try collectionLabel(expected, service) != label {
            candidates = isFirst
                ? try client.collectionPaths(service).filter { $0.hasPrefix(expected + "_5f") }.sorted() : []
        }
        for path in candidates where try collectionLabel(path, service) == label {
            directory.remember(path, for: shard)
            return path
        }
        guard let master else { return nil }
        let created = try client.createCollection(service, label: label, masterPassword: master)
        if !isFirst && created != expected {
            // Other processes find shards by path: one elsewhere would be invisible to them.
            try? client.deleteCollection(service, path: created)
            throw GLibFailure(
                call: "CreateWithMasterPassword",
                message: "gnome-keyring put shard \(shard.id) of access group '\(shard.group)' at \(created), not \(expected): remove the stray keyring file of that name")
        }
        logger.debug(
            "created a collection of an access group",
            metadata: ["group": "\(shard.group)", "shard": "\(shard.id)", "path": "\(created)"])
        directory.remember(created, for: shard)
        directory.noteUnlocked([created], epoch: service.owner)
        return created
    }

    func collectionLabel(_ path: String, _ service: ServiceHandle) throws -> String? {
        guard let value = try client.collectionProperty(service, path: path, name: "Label") else { return nil }
        defer { g_variant_unref(value) }
        return Variant.string(of: value)
    }

    // MARK: Locks

    func handleLocked(_ alias: String, _ service: ServiceHandle) throws -> Never {
        try handleLocked([alias], service)
    }

    /// The collections (or alias) are locked. If this store saw one unlocked during this run of
    /// the daemon, someone locked it (`.locked`) or the daemon restarted (reconnect). Otherwise,
    /// with a master password, unlock them all and run the operation again.
    func handleLocked(_ aliases: [String], _ service: ServiceHandle) throws -> Never {
        var unlocked: [String] = []
        for alias in Set(aliases).sorted() {
            // Name the real collection ("login"), as seen-unlocked records and users know it.
            var collection = alias
            if alias == CollectionDirectory.defaultAlias, let target = try client.readAlias(service, name: "default") {
                collection = target
            }
            let name = CollectionDirectory.displayName(of: collection)
            // With a device, its lock decides: a class it protects stays locked, any other is
            // unlocked whoever locked it (a device lock since lifted, a daemon restart).
            let device = configuration.layout.masterPassword != nil ? configuration.deviceLock?() : nil
            let protection = CollectionDirectory.protection(ofShard: collection)
            if let device, let protection, !device.allows(protection) { throw StorageError.deviceLocked(protection) }
            if device == nil || protection == nil, directory.wasUnlocked(collection, epoch: service.owner) {
                if try client.nameOwner(service) != service.owner {
                    throw GLibFailure(call: "GetNameOwner", message: "the Secret Service restarted", kind: .staleSession)
                }
                throw StorageError.locked(collection: name)
            }
            guard let master = configuration.layout.masterPassword else { throw StorageError.locked(collection: name) }
            do {
                try client.unlockCollection(service, path: collection, masterPassword: master)
            } catch {
                guard [.other, .noSuchObject, .locked].contains(error.kind) else { throw error }
                logger.debug("could not unlock a collection", metadata: ["collection": "\(name)", "reason": "\(error.message)"])
                throw StorageError.locked(collection: name)
            }
            logger.debug("unlocked a collection with the master password", metadata: ["collection": "\(name)"])
            unlocked.append(collection)
        }
        directory.noteUnlocked(unlocked, epoch: service.owner)
        throw RetryOperation()
    }

    func isLocked(_ collection: String, _ service: ServiceHandle) throws -> Bool {
        guard let value = try client.collectionProperty(service, path: collection, name: "Locked") else { return false }
        defer { g_variant_unref(value) }
        return Variant.bool(of: value) ?? false
    }

    static func unique(_ groups: [String]) -> [String] {
        var seen = Set<String>()
        return groups.filter { seen.insert($0).inserted }
    }
}
