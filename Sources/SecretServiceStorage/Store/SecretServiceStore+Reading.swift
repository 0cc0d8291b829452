import CLibsecret
import Foundation
import KeychainStorage

/// Reading items: finding them in the shards the index names (or by one service-wide search)
/// and fetching every secret in one `GetSecrets`, with locked collections never answered as
/// empty.
extension SecretServiceStore {
    /// One found item with where it lives.
    struct Fetched {
        let path: String
        let envelope: ItemEnvelope
        /// Written by another Secret Service client (a plain secret, no envelope): rewritten the
        /// same way, so that client still reads it.
        var isExternal = false
    }

    /// The item another client wrote at `path` with `secret` as its data, its attributes read
    /// from the Secret Service (one call); nil when it is gone. It reads as added by `external`.
    func externalItem(at path: String, secret: Data, _ service: ServiceHandle) throws -> ItemEnvelope? {
        guard let properties = try client.itemProperties(service, path: path) else { return nil }
        do {
            return try ItemAttributes.externalItem(properties, data: secret)
        } catch {
            throw StorageError.corruptItem(location: path, reason: error.reason)
        }
    }

    /// The items holding `key` (writing: the caller holds the group's lock). The attribute search
    /// finds every item that may hold it; when it finds any, their records decide, since a local
    /// item's search cannot leave out its synchronizable twin (an absent attribute is no search
    /// term) and an internet password's attributes are not its whole key. Locked matches are
    /// returned as such, unchecked.
    func holders(of key: PrimaryKey, _ service: ServiceHandle) throws -> SecretServiceClient.SearchResult {
        let found = try search(ItemAttributes.matching(key), group: key.group, writing: true, service)
        guard !found.unlocked.isEmpty else { return found }
        let secrets: [String: Data]
        do {
            secrets = try client.secrets(service, paths: found.unlocked)
        } catch {
            if error.kind == .noSuchObject { throw RetryOperation() }
            throw error
        }
        let decoder = JSONDecoder()
        var holding: [String] = []
        for path in found.unlocked {
            // A secret left out sits in a locked collection: taken, as far as anyone can tell.
            guard let bytes = secrets[path] else {
                holding.append(path)
                continue
            }
            let item: StoredItem?
            if ItemEnvelope.isEnvelope(bytes) {
                do {
                    item = try ItemEnvelope.decode(bytes, using: decoder).item
                } catch {
                    throw StorageError.corruptItem(location: path, reason: error.reason)
                }
            } else {
                item = try externalItem(at: path, secret: bytes, service)?.item
            }
            if let item, item.primaryKey == key { holding.append(path) }
        }
        return SecretServiceClient.SearchResult(unlocked: holding, locked: found.locked)
    }

    /// Every item matching `query`: one path search per group, then ONE GetSecrets. Ordered like
    /// InMemoryStore: each group in insertion order, groups in query order, and across several
    /// groups by creation date (a stable sort keeps the rest).
    func fetch(_ query: ItemQuery, writing: Bool, _ service: ServiceHandle) throws -> [Fetched] {
        let groups = Self.unique(query.groups)
        if groups.count == 1, let known = try fetchWhereLastSeen(query, in: groups[0], writing: writing, service) {
            return known
        }
        var pathsByGroup: [[String]] = []
        for group in groups {
            let searches = ItemAttributes.searches(for: query, in: group)
            let exactKey = query.exactKey(in: group)
            var paths: [String] = []
            for attributes in searches {
                paths += try searchUnlocked(attributes, group: group, writing: writing, exactKey: exactKey, service)
            }
            if searches.count > 1 {
                // The searches of one provenance (its attribute, the earlier layout's creator) may
                // both hold an item that carries both.
                var seen = Set<String>()
                paths = paths.filter { seen.insert($0).inserted }
            }
            pathsByGroup.append(paths)
        }
        let allPaths = pathsByGroup.flatMap { $0 }
        guard !allPaths.isEmpty else { return [] }
        // What the attribute search held every item found to: a record that contradicts it is
        // damaged. An empty service is no search term (``ItemAttributes/matching(_:in:)``).
        var searched = query
        if query.service == "" { searched.service = nil }
        var decoding = RecordDecoding(query: query, searched: searched)
        // Each batch of secrets is decoded as it comes and let go: a read of 10,000 items once
        // held every raw secret and every decoded record at the same time.
        var records = [[Fetched]](repeating: [], count: groups.count)
        // Where each group's paths end in `allPaths`.
        let ends = pathsByGroup.reduce(into: [Int]()) { $0.append(($0.last ?? 0) + $1.count) }
        var position = 0
        var groupIndex = 0
        // Collections whose items answered (unlocked), and the items left out of an answer.
        var answered = Set<String>()
        var leftOut: [(path: String, group: Int)] = []
        try readingSecrets(of: allPaths, service) {
            try client.inBatches(allPaths) { batch in
                secretsRequested.add(batch.count, ordering: .relaxed)
                let secrets = try client.secretsInOneCall(service, paths: batch)
                for path in batch {
                    while position >= ends[groupIndex] { groupIndex += 1 }
                    position += 1
                    guard let bytes = secrets[path] else {
                        leftOut.append((path, groupIndex))
                        continue
                    }
                    answered.insert(CollectionDirectory.collection(ofItem: path))
                    if let record = try decoding.record(at: path, bytes, group: groups[groupIndex], self, service) {
                        records[groupIndex].append(record)
                    }
                }
            }
        }
        // gnome-keyring leaves out the secrets of locked items: a path missing from the answer
        // sits in a locked collection, or was deleted meanwhile (skipped), or its collection
        // was locked then and is unlocked now (another store unlocked it on its own read): read
        // those once more, so that an item still there is never taken as deleted.
        if !leftOut.isEmpty {
            let collections = Set(leftOut.map { CollectionDirectory.collection(ofItem: $0.path) })
            let locked = try collections.sorted().filter { try isLocked($0, service) }
            if !locked.isEmpty { try handleLocked(locked, service) }
            let paths = leftOut.map(\.path)
            let secrets = try readingSecrets(of: paths, service) { try client.secrets(service, paths: paths) }
            for (path, index) in leftOut {
                guard let bytes = secrets[path] else { continue }
                answered.insert(CollectionDirectory.collection(ofItem: path))
                if let record = try decoding.record(at: path, bytes, group: groups[index], self, service) {
                    records[index].append(record)
                }
            }
        }
        directory.noteUnlocked(answered, epoch: service.owner)
        for index in records.indices {
            records[index].sort { ($0.envelope.sequence, $0.path) < ($1.envelope.sequence, $1.path) }
        }
        // One group (the usual read) is its records as they are, not a copy of them.
        var result = records.count == 1 ? records.removeLast() : records.flatMap { $0 }
        if groups.count > 1 {
            result.sort { $0.envelope.item.creationDate < $1.envelope.item.creationDate }
        }
        directory.rememberItems(result.lazy.filter { !$0.isExternal }.map { ($0.envelope.item.primaryKey, $0.path) })
        return result
    }

    /// Runs `read` (GetSecrets of `paths`), mapping its failures for ``fetch(_:writing:_:)``.
    private func readingSecrets<T>(of paths: [String], _ service: ServiceHandle, _ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as GLibFailure {
            // Deleted between the search and GetSecrets: search again.
            if error.kind == .noSuchObject { throw RetryOperation() }
            // Locked: a search of one collection does not tell locked items apart.
            if error.kind == .locked, let path = paths.first { try handleLocked(CollectionDirectory.collection(ofItem: path), service) }
            throw error
        }
    }

    /// How ``fetch(_:writing:_:)`` turns each secret into a record, batch by batch.
    struct RecordDecoding {
        let query: ItemQuery
        /// The query as the attribute search ran it.
        let searched: ItemQuery
        let decoder = JSONDecoder()
        /// Whether the daemon was checked this fetch: once is enough for every plain secret.
        var daemonChecked = false

        /// The record of the item at `path` of `group` holding `bytes`; nil when it is not a
        /// match (or, another client's, is gone).
        mutating func record(
            at path: String, _ bytes: Data, group: String, _ store: SecretServiceStore, _ service: ServiceHandle
        ) throws -> Fetched? {
            let envelope: ItemEnvelope
            var isExternal = false
            if ItemEnvelope.isEnvelope(bytes) {
                do {
                    envelope = try ItemEnvelope.decode(bytes, using: decoder)
                } catch {
                    // Garbage from a session the restarted daemon gave to someone else, or a
                    // damaged item: only the first is worth a reconnect.
                    try store.ensureSameDaemon(service)
                    throw StorageError.corruptItem(location: path, reason: error.reason)
                }
            } else {
                // No envelope: another client wrote it with our attributes (or the daemon
                // restarted and this is garbage from someone else's session: checked first,
                // once for the whole fetch).
                if !daemonChecked {
                    try store.ensureSameDaemon(service)
                    daemonChecked = true
                }
                guard let external = try store.externalItem(at: path, secret: bytes, service) else { return nil }
                envelope = external
                isExternal = true
            }
            guard envelope.item.group == group, searched.matchesSearchable(envelope.item) else {
                throw StorageError.corruptItem(location: path, reason: "its attributes do not match the record in its secret")
            }
            // What was not searched for (the empty service) is matched here, like the filters.
            guard query.matchesSearchable(envelope.item), query.filters.matches(envelope.item) else { return nil }
            return Fetched(path: path, envelope: envelope, isExternal: isExternal)
        }
    }

    /// The items of `group` matching `attributes`. In the per-group layout only the group's
    /// shards that may hold them are searched, each on its own: gnome-keyring's service-wide
    /// search walks every item of every collection, so each call would cost what ALL groups
    /// hold. A search of one collection cannot tell locked items apart; a locked collection
    /// shows when their secrets are read or written, or (nothing found) through its `Locked`
    /// property. `searched` receives the collections searched (nil: the whole service).
    func search(
        _ attributes: [String: String], group: String, writing: Bool, _ service: ServiceHandle
    ) throws -> SecretServiceClient.SearchResult {
        try searchShards(attributes, group: group, writing: writing, service).found
    }

    /// ``search(_:group:writing:_:)`` with the collections searched one by one (nil: one search
    /// of the whole service).
    func searchShards(
        _ attributes: [String: String], group: String, writing: Bool, exactKey: PrimaryKey? = nil, _ service: ServiceHandle
    ) throws -> (found: SecretServiceClient.SearchResult, searched: [String]?) {
        guard let plan = try searchPlan(attributes, group: group, writing: writing, exactKey: exactKey, service) else {
            return (try client.searchPaths(service, attributes: attributes), nil)
        }
        try ensureUnlocked(plan.collections, service)
        // Other clients' items sit where `secret-tool store` puts them: the default collection.
        let foreign = try searchForeign(attributes, service)
        if plan.serviceWide {
            let found = try client.searchPaths(service, attributes: attributes)
            let shards = Set(plan.collections)
            let inShard = { (path: String) in shards.contains(CollectionDirectory.collection(ofItem: path)) }
            return (SecretServiceClient.SearchResult(unlocked: found.unlocked.filter(inShard) + foreign, locked: found.locked.filter(inShard)), nil)
        }
        var unlocked: [String] = foreign
        for collection in plan.collections {
            do {
                unlocked += try client.searchPaths(service, collection: collection, attributes: attributes)
            } catch {
                guard error.kind == .noSuchObject else { throw error }
                // Deleted by another process's wipe since we found it: nothing there now.
                directory.forget(group)
            }
        }
        let key = attributes[ItemAttributes.account] != nil && attributes[ItemAttributes.service] != nil
        if key && unlocked.count == foreign.count && !plan.collections.isEmpty {
            // The index names a shard for this key that does not hold it: a record of an item
            // never written (a crash), one a writer is about to create, or an index naming the
            // wrong shard. Only every shard tells.
            return (
                try searchMisplaced(attributes, group: group, writing: writing, foreign: foreign, searched: plan.collections, service),
                plan.collections
            )
        }
        return (SecretServiceClient.SearchResult(unlocked: unlocked, locked: []), plan.collections)
    }

    /// The item `attributes` name, searched for in every shard of `group` after the shards the
    /// index names (`searched`) did not hold it. Found in a shard the index did not name, the
    /// index is rebuilt (under the lock) unless the group's current index names that shard.
    ///
    /// Not every miss is a wrong index. A writer records an item before it creates it, so a
    /// reader (without the lock) can search the named shard between the two and find it there
    /// in this census: the index was right. And a reader's index may predate a delete and add
    /// of the same key, which put the item in another shard: the file already says so. (A
    /// rebuild on either once stalled every writer of a 5,000-item group for seconds, again and
    /// again, while the apps created MSAL's shared metadata items.)
    func searchMisplaced(
        _ attributes: [String: String], group: String, writing: Bool, foreign: [String], searched: [String], _ service: ServiceHandle
    ) throws -> SecretServiceClient.SearchResult {
        let found = try census(of: group, matching: attributes, service).paths.values.flatMap { $0 }
        let named = Set(searched)
        let elsewhere = Set(found.filter { !named.contains(CollectionDirectory.collection(ofItem: $0)) }.map { shardID(ofItem: $0, group: group) })
        if !elsewhere.isEmpty {
            let reason = "its shard index \(indexes.file(for: group).path) named the wrong shard for an item"
            if writing {
                _ = try rebuildIndex(group, because: reason, service)
            } else {
                try withGroupLock(group) {
                    // Judged again under the lock, on the index as it is now.
                    guard try !indexNames(elsewhere, attributes, group: group, service) else { return }
                    _ = try rebuildIndex(group, because: reason, service)
                }
            }
        }
        return SecretServiceClient.SearchResult(unlocked: foreign + found, locked: [])
    }

    /// Whether the group's index, read afresh, names every one of `shards` for the account and
    /// service of `attributes`.
    private func indexNames(_ shards: Set<ShardID>, _ attributes: [String: String], group: String, _ service: ServiceHandle) throws -> Bool {
        guard case .loaded(let index, _) = try indexes.load(group, epoch: service.owner) else { return false }
        let candidates = Set(index.candidateShards(account: attributes[ItemAttributes.account], service: attributes[ItemAttributes.service]))
        return shards.isSubset(of: candidates)
    }

    /// The items matching `attributes` in the default collection, in the per-group layout: there
    /// other Secret Service clients write items with this store's attributes (see the storage
    /// contract), which the store adopts. Whether there are any at all is looked up at most once
    /// per ``Configuration/foreignItemsRecheckInterval`` (one search of the collection for the
    /// schema); while there are none, operations make no extra call.
    func searchForeign(_ attributes: [String: String], _ service: ServiceHandle) throws -> [String] {
        guard configuration.adoptsForeignItems else { return [] }
        let present: Bool
        if let known = directory.foreignItemsPresent(epoch: service.owner, within: configuration.foreignItemsRecheckInterval) {
            present = known
        } else {
            present = try !searchDefaultCollection([ItemAttributes.schemaKey: ItemAttributes.schemaName], service).isEmpty
            directory.noteForeignItems(present: present, epoch: service.owner)
        }
        return present ? try searchDefaultCollection(attributes, service) : []
    }

    /// One search of the collection behind the `default` alias; none there is nothing found.
    private func searchDefaultCollection(_ attributes: [String: String], _ service: ServiceHandle) throws -> [String] {
        do {
            return try client.searchPaths(service, collection: CollectionDirectory.defaultAlias, attributes: attributes)
        } catch {
            guard error.kind == .noSuchObject else { throw error }
            return []
        }
    }

    /// The unlocked items matching `attributes`. Locked matches, or an empty result while the
    /// group's collection is locked (which hides items from some services), go through
    /// ``handleLocked(_:_:)``: never an empty answer for a locked collection.
    func searchUnlocked(
        _ attributes: [String: String], group: String, writing: Bool, exactKey: PrimaryKey? = nil, _ service: ServiceHandle
    ) throws -> [String] {
        let (found, searched) = try searchShards(attributes, group: group, writing: writing, exactKey: exactKey, service)
        if !found.locked.isEmpty {
            try handleLocked(found.locked.map(CollectionDirectory.collection(ofItem:)), service)
        }
        if found.unlocked.isEmpty {
            // The index names no shard for it: no item of ours matches, whether or not the
            // group's collections are locked (the index, not gnome-keyring's search, knows what
            // they hold), so it is not found, as in the in-memory store. A write that follows
            // meets any lock itself. (Where the keyring's search is all there is, below, a
            // locked collection that may hide a match is .locked, never an empty result.)
            if searched?.isEmpty == true, configuration.layout.masterPassword != nil { return [] }
            // One extra call per collection searched, only when nothing was found.
            let collections = searched.flatMap { $0.isEmpty ? nil : $0 } ?? [relevantCollection(for: group)]
            let locked = try collections.filter { try isLocked($0, service) }
            if !locked.isEmpty { try handleLocked(locked, service) }
            return []
        }
        if configuration.layout.masterPassword == nil {
            // A search of one collection (per-group layout) does not tell; reading secrets does.
            directory.noteUnlocked(Set(found.unlocked.map(CollectionDirectory.collection(ofItem:))), epoch: service.owner)
        }
        return found.unlocked
    }
}
