import CLibsecret
import Foundation
import KeychainStorage

/// Writing items: creating one from its envelope, deleting one, and applying an update plan so
/// that a failure part-way leaves the old items.
extension SecretServiceStore {
    /// Creates the item in `collection`; returns its path. An `external` item (another client's)
    /// keeps that client's form: the plain data as its secret, and no provenance attribute.
    func create(
        _ envelope: ItemEnvelope, in collection: String, replace: Bool, external: Bool = false, _ service: ServiceHandle
    ) throws -> String {
        let secret: Data
        if external {
            secret = envelope.item.data
        } else {
            do {
                secret = try envelope.encoded()
            } catch {
                throw StorageError.backend(domain: "shared-keychain", code: 0, message: "cannot encode the item record: \(error)")
            }
        }
        // A secret is encrypted with this connection's session key. After another process
        // restarted the daemon, the new daemon may have given our session path to a session with
        // another key, and would store garbage: the write must reach the daemon we opened the
        // session with.
        try ensureWriteReachesOurDaemon(service)
        do {
            let path = try client.createItem(
                service, collection: collection, label: ItemAttributes.label(of: envelope.item),
                attributes: external ? ItemAttributes.ofExternal(envelope.item) : ItemAttributes.of(envelope.item), secret: secret,
                contentType: external ? "text/plain" : ItemEnvelope.contentType, replace: replace)
            // A restart between the check above and the call would have sent our secret to a new
            // daemon under a session that may not be ours: check again, so the operation runs
            // again on a fresh session and rewrites the item.
            try ensureWriteReachesOurDaemon(service)
            directory.noteUnlocked([CollectionDirectory.collection(ofItem: path)], epoch: service.owner)
            return path
        } catch {
            // One plain catch: `catch where` clauses in these untyped-throwing methods crash the
            // Swift 6.3 compiler (SIL ownership verifier).
            switch error.kind {
            case .locked:
                try handleLocked(collection, service)
            case .noSuchObject where configuration.layout.masterPassword != nil:
                // Another process deleted the group's collection since we cached its path.
                directory.forget(envelope.item.group)
                throw RetryOperation()
            default:
                throw error
            }
        }
    }

    /// Fails with a stale session unless a write with our session's key can only reach the
    /// daemon that made the session. CreateItem and SetSecret go to that daemon by its unique
    /// bus name (``ServiceHandle/owner``), which the bus never gives another: after a restart
    /// they fail and the store reconnects. Only a handle that learnt no owner at connection
    /// (the calls then go to the well-known name) asks the bus who owns it (`GetNameOwner`),
    /// before and after the write; otherwise the two round trips would be paid by every write,
    /// under the group's lock.
    func ensureWriteReachesOurDaemon(_ service: ServiceHandle) throws(GLibFailure) {
        guard service.owner == nil else { return }
        try ensureSameDaemon(service)
    }

    /// Replaces the secret of the item at `path` (its attributes and label stay as they are):
    /// one `SetSecret`, announced to watchers with the store's own `SecretChanged` signal, as
    /// gnome-keyring sends none for it. An `external` item keeps its client's form, the plain data.
    func rewrite(_ envelope: ItemEnvelope, at path: String, external: Bool, _ service: ServiceHandle) throws {
        let secret: Data
        do {
            secret = external ? envelope.item.data : try envelope.encoded()
        } catch {
            throw StorageError.backend(domain: "shared-keychain", code: 0, message: "cannot encode the item record: \(error)")
        }
        // As in create: the secret must reach the daemon whose session key encrypted it.
        try ensureWriteReachesOurDaemon(service)
        do {
            try client.setSecret(service, path: path, secret: secret, contentType: external ? "text/plain" : ItemEnvelope.contentType)
            try ensureWriteReachesOurDaemon(service)
            client.announceSecretChanged(service, path: path)
        } catch {
            switch error.kind {
            case .locked: try handleLocked(CollectionDirectory.collection(ofItem: path), service)
            // Gone since it was found (a collection deleted by a client that ignores our locks): find it again.
            case .noSuchObject: throw RetryOperation()
            default: throw error
            }
        }
    }

    /// Notes where the item `envelope` holds now sits: for this store's reads of its key (the
    /// path) and, under a hold, for what the store keeps once the hold ends (`added`: the store
    /// added it, ``RecentItems/addedLimit``).
    func noteWritten(_ envelope: ItemEnvelope, at path: String, added: Bool = false) {
        directory.rememberItems([(envelope.item.primaryKey, path)])
        Self.currentHold?.note(envelope.item.primaryKey, RecentItems.Entry(path: path, envelope: envelope, added: added))
    }

    /// Notes that the item at `key` is gone.
    func noteDeleted(_ key: PrimaryKey) {
        directory.forgetItem(key)
        Self.currentHold?.note(key, nil)
    }

    /// Deletes one item; false when it was gone already.
    func deleteItem(_ path: String, _ service: ServiceHandle) throws -> Bool {
        do {
            try client.deleteItem(service, path: path)
            return true
        } catch {
            switch error.kind {
            case .noSuchObject: return false
            case .locked: try handleLocked(CollectionDirectory.collection(ofItem: path), service)
            default: throw error
            }
        }
    }

    /// Keys `change` would move items to that items outside `matched` hold already.
    func keysTaken(by change: ItemChange, from matched: [StoredItem], at date: Date, _ service: ServiceHandle) throws
        -> Set<PrimaryKey>
    {
        guard change.touchesPrimaryKey else { return [] }
        let vacated = Set(matched.map(\.primaryKey))
        var checked = Set<PrimaryKey>()
        var taken = Set<PrimaryKey>()
        for item in matched {
            let key = change.applied(to: item, at: date).primaryKey
            guard !vacated.contains(key), checked.insert(key).inserted else { continue }
            let found = try holders(of: key, service)
            if !found.unlocked.isEmpty || !found.locked.isEmpty { taken.insert(key) }
        }
        return taken
    }

    /// Data above this many bytes makes an item move to a shard of its own when it shares one.
    static let aloneThreshold = 64 * 1024

    /// Writes an update plan. An item whose attributes stay the same is rewritten in place
    /// (SetSecret, or CreateItem with REPLACE when its label changes); one whose attributes
    /// change gets a new item first, and the old ones are deleted only once every new one
    /// exists, so a swap of two keys works and a failure part-way leaves the old items. An item
    /// whose data outgrows ``aloneThreshold`` in a shard it shares moves the same way to a
    /// shard of its own (``ShardIndex/aloneBase``), so writes to the others stop rewriting it.
    func apply(_ plan: UpdatePlan, to fetched: [Fetched], _ service: ServiceHandle) throws {
        let indexed = configuration.layout.masterPassword != nil
        var moves: [(record: Fetched, new: StoredItem, alone: Bool)] = []
        for (record, replacement) in zip(fetched, plan.replacements) {
            guard ItemAttributes.of(replacement.old) == ItemAttributes.of(replacement.new) else {
                moves.append((record, replacement.new, false))
                continue
            }
            if indexed, !record.isExternal, replacement.new.data.count > Self.aloneThreshold {
                let shard = shardID(ofItem: record.path, group: replacement.new.group)
                if !shard.holdsOneItem, (try writerIndex(for: replacement.new.group, service).sizes[shard] ?? 0) > 1 {
                    moves.append((record, replacement.new, true))
                    continue
                }
            }
            let envelope = ItemEnvelope(item: replacement.new, sequence: record.envelope.sequence)
            var path = record.path
            if ItemAttributes.label(of: replacement.old) == ItemAttributes.label(of: replacement.new) {
                try rewrite(envelope, at: record.path, external: record.isExternal, service)
            } else {
                path = try create(
                    envelope, in: CollectionDirectory.collection(ofItem: record.path), replace: true, external: record.isExternal, service)
                if path != record.path {
                    _ = try deleteItem(record.path, service)
                }
            }
            if !record.isExternal { noteWritten(envelope, at: path) }
        }
        // Moved keys are recorded in the index before their items exist, and the old keys
        // removed only once the old items are gone (and no new item took the same key).
        var created: [String] = []
        do {
            for (record, new, alone) in moves {
                // A new primary key moves the item to the end of its group, as in memory.
                let keyChanged = record.envelope.item.primaryKey != new.primaryKey
                let envelope = ItemEnvelope(item: new, sequence: keyChanged ? InsertionClock.next() : record.envelope.sequence)
                var collection = CollectionDirectory.collection(ofItem: record.path)
                let protection = new.accessibility.protection
                if alone {
                    let shard = try writerIndex(for: new.group, service).shardForItemAlone(protection: protection)
                    try indexes.append([.place(ShardIndex.Key(new.primaryKey), shard: shard)], to: new.group)
                    collection = try writableCollection(for: new.group, shard: shard, service)
                } else if indexed && !record.isExternal && protection != record.envelope.item.accessibility.protection {
                    // A new class lives in that class's shards, which the device's lock governs.
                    if let state = configuration.deviceLock?(), !state.allows(protection) { throw StorageError.deviceLocked(protection) }
                    let shard = try writerIndex(for: new.group, service).shardForNewItem(capacity: configuration.shardCapacity, protection: protection)
                    try indexes.append([.place(ShardIndex.Key(new.primaryKey), shard: shard)], to: new.group)
                    collection = try writableCollection(for: new.group, shard: shard, service)
                } else if indexed && keyChanged && !record.isExternal {
                    let shard = shardID(ofItem: record.path, group: new.group)
                    try indexes.append([.place(ShardIndex.Key(new.primaryKey), shard: shard)], to: new.group)
                }
                let path = try create(envelope, in: collection, replace: false, external: record.isExternal, service)
                created.append(path)
                if !record.isExternal { noteWritten(envelope, at: path) }
            }
        } catch {
            for path in created { try? client.deleteItem(service, path: path) }
            throw error
        }
        let newKeys = Set(moves.map(\.new.primaryKey))
        var removed: [String: [ShardIndex.Record]] = [:]
        for (record, _, _) in moves {
            _ = try deleteItem(record.path, service)
            let old = record.envelope.item.primaryKey
            if !newKeys.contains(old) { noteDeleted(old) }
            if indexed && !newKeys.contains(old) { removed[old.group, default: []].append(.remove(ShardIndex.Key(old))) }
        }
        for (group, records) in removed { recordAfterChange(records, in: group) }
    }

    /// Deletes every item of `group` by deleting its shard collections, one call each, after
    /// one search to count them (per-group layout only); the group's index starts afresh.
    func deleteWholeGroup(_ group: String, _ service: ServiceHandle) throws -> Int {
        // Nothing found in a locked collection is .locked there, not "nothing deleted".
        let paths = try searchUnlocked(
            ItemAttributes.matching(ItemQuery(groups: [group]), in: group), group: group, writing: true, service)
        let collections = try shardCollections(of: group, service)
        for collection in collections {
            do {
                try client.deleteCollection(service, path: collection)
            } catch {
                switch error.kind {
                case .locked:
                    try handleLocked(collection, service)
                case .noSuchObject:
                    continue
                default:
                    throw error
                }
            }
        }
        // Other clients' items of the group (in the default collection) go one by one.
        let shards = Set(collections)
        for path in paths where !shards.contains(CollectionDirectory.collection(ofItem: path)) {
            _ = try deleteItem(path, service)
        }
        directory.forget(group)
        recent.forget(group)
        let indexed = indexes.exists(group)
        if !collections.isEmpty || indexed {
            try indexes.replace(group, with: ShardIndex())
        }
        logger.debug("deleted the collections of an access group", metadata: ["group": "\(group)", "shards": "\(collections.count)"])
        return paths.count
    }
}
