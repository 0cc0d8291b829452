import Foundation
import KeychainStorage

/// The keyring is the truth, the shard index a hint. Before a store uses a group's index, it
/// checks it against the keyring once per run of the daemon (a census: how many of the group's
/// items each shard holds, one search per shard, plus the list of collections); after that,
/// writers' appends keep it current and adds make no extra call. An index the keyring does not
/// bear out (lost or extra records, a shard gone, a file that cannot be parsed or is not a
/// regular file) is rebuilt from the keyring under the group's lock, and the store says so once,
/// as a warning naming the group and what was wrong.
extension SecretServiceStore {
    /// What the keyring says of an index.
    enum IndexVerdict {
        case trusted(ShardIndex)
        case absent
        /// Why it cannot be trusted, for a person.
        case wrong(String)
    }

    /// How many of a group's items each of its shards holds; `unseen` are the shards the
    /// device's lock keeps shut, which are not counted.
    struct Census {
        var paths: [ShardID: [String]] = [:]
        var unseen: Set<ShardID> = []
    }

    /// The group's index once the keyring bore it out (rebuilt when it did not); nil when the
    /// group has no index file and `lockHeld` is false (a reader then searches every shard).
    /// `lockHeld`: the caller holds the group's lock, as writers do; a reader takes it to rebuild.
    func trustedIndex(for group: String, lockHeld: Bool, _ service: ServiceHandle) throws -> ShardIndex? {
        switch try judgeIndex(group, service) {
        case .trusted(let index): return index
        case .absent: return lockHeld ? try rebuildIndex(group, because: nil, service) : nil
        case .wrong(let reason) where lockHeld: return try rebuildIndex(group, because: reason, service)
        case .wrong:
            return try withGroupLock(group) { () throws -> ShardIndex? in
                // Judged again: a writer may have been between its record and its item, or
                // another process may have rebuilt the index while this one waited.
                switch try judgeIndex(group, service) {
                case .trusted(let index): return index
                case .absent: return nil
                case .wrong(let reason): return try rebuildIndex(group, because: reason, service)
                }
            }
        }
    }

    /// Whether the group's index file can be used and, unless this store already checked it in
    /// this run of the daemon, whether every shard holds what it says.
    func judgeIndex(_ group: String, _ service: ServiceHandle) throws -> IndexVerdict {
        switch try indexes.load(group, epoch: service.owner) {
        case .absent: return .absent
        case .unusable(let reason): return .wrong(reason)
        case .loaded(let index, verified: true): return .trusted(index)
        case .loaded(let index, verified: false):
            // A census another process kept, still standing: what a device pays, not a count.
            if censusStampHolds(group, service) {
                indexes.markVerified(group, epoch: service.owner)
                return .trusted(index)
            }
            // The files before the census: a change during it leaves the stamp stale.
            let files = keyringFileMarks(of: group)
            censusCount.add(1, ordering: .relaxed)
            let census = try census(of: group, expecting: index, service)
            if let reason = census.disagreement(with: index, file: indexes.file(for: group).path) { return .wrong(reason) }
            indexes.markVerified(group, epoch: service.owner)
            if !census.unseen.isEmpty { indexes.noteUnconfirmed(group) }
            stampCensus(group, files: files, counted: census, service)
            return .trusted(index)
        }
    }

    /// The items of `group` matching `attributes` in each shard the keyring has, by shard: each
    /// shard searched on its own, or with many shards one service-wide search kept to them.
    ///
    /// gnome-keyring's searches leave out the items of a collection locked since it was loaded
    /// (after a daemon restart), so a shard must be unlocked to be counted. With `expecting`,
    /// only the shards that hold fewer items than it says are checked (one `Locked` read each,
    /// an unlock reruns the operation): the common case, an index that agrees, costs no more
    /// than the searches. Without it, every shard is checked first.
    func census(
        of group: String, matching attributes: [String: String]? = nil, expecting: ShardIndex? = nil, _ service: ServiceHandle
    ) throws -> Census {
        let attributes = attributes ?? ItemAttributes.matching(ItemQuery(groups: [group]), in: group)
        let device = configuration.deviceLock?()
        var census = Census()
        var shards: [String: ShardID] = [:]
        for shard in try discoverShards(of: group, service) {
            if let device, !device.allows(shard.id.protection) {
                census.unseen.insert(shard.id)
            } else if let path = try resolveCollection(shard, creatingWith: nil, useCache: true, service) {
                shards[path] = shard.id
            }
        }
        if expecting == nil { try ensureUnlocked(shards.keys.sorted(), service) }
        census.paths = try searchEach(shards, attributes, group, service)
        if let expecting {
            let short = shards.filter { path, shard in census.paths[shard].map { $0.count < expecting.sizes[shard] ?? 0 } ?? false }
            try ensureUnlocked(short.keys.sorted(), service)
        }
        return census
    }

    /// The paths matching `attributes` in each of `shards` (by collection path), by shard; a
    /// shard deleted meanwhile is left out.
    private func searchEach(
        _ shards: [String: ShardID], _ attributes: [String: String], _ group: String, _ service: ServiceHandle
    ) throws -> [ShardID: [String]] {
        var paths: [ShardID: [String]] = [:]
        for shard in shards.values { paths[shard] = [] }
        if shards.count > Self.shardSearchLimit {
            let found = try client.searchPaths(service, attributes: attributes)
            for path in found.unlocked + found.locked {
                if let shard = shards[CollectionDirectory.collection(ofItem: path)] { paths[shard, default: []].append(path) }
            }
            return paths
        }
        for (path, shard) in shards {
            do {
                paths[shard] = try client.searchPaths(service, collection: path, attributes: attributes)
            } catch {
                guard error.kind == .noSuchObject else { throw error }
                // Deleted by another process's wipe since it was listed.
                paths[shard] = nil
                directory.forget(group)
            }
        }
        return paths
    }

    /// Builds the group's index from the keyring (the caller holds the group's lock) and makes it
    /// the group's index file. `reason`: what was wrong with the old one, said once as a warning;
    /// nil for a group that never had one (from before indexes), which is nothing to report.
    func rebuildIndex(_ group: String, because reason: String?, _ service: ServiceHandle) throws -> ShardIndex {
        let files = keyringFileMarks(of: group)
        censusCount.add(1, ordering: .relaxed)
        let census = try census(of: group, service)
        // A shard the device keeps shut may hold items: an index without them would hide them.
        if let shut = census.unseen.min() { throw StorageError.deviceLocked(shut.protection) }
        var index = ShardIndex()
        for shard in census.paths.keys { index.noteShard(shard) }
        let paths = census.paths.values.flatMap { $0 }
        if !paths.isEmpty {
            let secrets = try client.secrets(service, paths: paths)
            if secrets.count < paths.count {
                let collections = Set(paths.filter { secrets[$0] == nil }.map(CollectionDirectory.collection(ofItem:)))
                let locked = try collections.sorted().filter { try isLocked($0, service) }
                if !locked.isEmpty { try handleLocked(locked, service) }
            }
            let decoder = JSONDecoder()
            for (path, bytes) in secrets {
                guard ItemEnvelope.isEnvelope(bytes), let envelope = try? ItemEnvelope.decode(bytes, using: decoder) else { continue }
                index.place(ShardIndex.Key(envelope.item.primaryKey), in: shardID(ofItem: path, group: group))
            }
        }
        let movedAside = try indexes.replace(group, with: index, verifiedEpoch: .some(service.owner))
        stampCensus(group, files: files, counted: census, service)
        guard let reason else {
            logger.debug("built the shard index of an access group", metadata: ["group": "\(group)", "items": "\(index.shards.count)"])
            return index
        }
        var message = "access group '\(group)': \(reason). Rebuilt its shard index from the keyring, which holds "
            + "\(Self.counted(index.shards.count, "item")) of the group"
        if let movedAside { message += "; the old file is at \(movedAside) (safe to remove)" }
        logger.warning("\(message)")
        return index
    }

    /// Runs `body` holding the group's lock (a reader about to repair the group's index).
    func withGroupLock<T>(_ group: String, _ body: () throws -> T) throws -> T {
        try holdingLocks([group]) { () throws(StorageError) -> Result<T, any Error> in Result { try body() } }.get()
    }

    /// Appends index records for a change that has already happened in the keyring. A failure
    /// here does not undo the change, so it is no failure of the operation: the record missing
    /// (or left behind) shows as a disagreement the next check of the index repairs.
    func recordAfterChange(_ records: [ShardIndex.Record], in group: String) {
        do {
            try indexes.append(records, to: group)
        } catch {
            indexes.noteUnconfirmed(group)
            logger.warning(
                "access group '\(group)': could not record a change in its shard index (\(error)); the next command rebuilds the index from the keyring")
        }
    }

    /// `1 item`, `3 items`.
    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

extension SecretServiceStore.Census {
    /// Why `index` does not describe these shards, for a person; nil when every shard the census
    /// saw holds what the index says.
    func disagreement(with index: ShardIndex, file: String) -> String? {
        var hidden = 0
        var stale = 0
        var lost: [ShardIndex.ShardID: Int] = [:]
        for shard in Set(index.sizes.keys).union(paths.keys) where !unseen.contains(shard) {
            let expected = index.sizes[shard] ?? 0
            guard let found = paths[shard]?.count else {
                if expected > 0 { lost[shard] = expected }
                continue
            }
            if found > expected { hidden += found - expected } else { stale += expected - found }
        }
        var problems: [String] = []
        if !lost.isEmpty {
            let missing = lost.values.reduce(0, +)
            problems.append(
                "\(SecretServiceStore.counted(missing, "item")) the shard index names are gone from the keyring: their shard "
                    + "collection (\(lost.keys.sorted().map { "shard \($0)" }.joined(separator: ", "))) no longer exists, as when its "
                    + "keyring file was deleted, replaced or cannot be read. Restore that file from a backup to get them back "
                    + "(the index finds them again)")
        }
        if hidden > 0 {
            problems.append("\(SecretServiceStore.counted(hidden, "item")) in the keyring had no record in the shard index \(file)")
        }
        if stale > 0 {
            problems.append(
                "the shard index \(file) named \(SecretServiceStore.counted(stale, "item")) the keyring does not hold (left by a crash or a failed write)")
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}
