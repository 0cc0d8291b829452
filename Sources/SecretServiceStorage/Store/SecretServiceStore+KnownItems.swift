import Foundation
import KeychainStorage

/// Reads the store settles without a search: the generic passwords a query names by key, from
/// what the store keeps of its group (``RecentItems``) or from the paths it last saw them at,
/// and queries the group's shard index shows to match nothing.
extension SecretServiceStore {
    /// The generic password(s) `query` names by account and service in `group` (the local one,
    /// the synchronizable one, or both when the query takes either), without a search: as kept
    /// since this store last read or wrote them while the group's version stands (``recent``:
    /// no call at all), else read from the paths it last saw them at (one `GetSecrets` instead
    /// of a search and a `GetSecrets`; gnome-keyring's search walks every item the daemon
    /// holds). The group's index says which of the keys exist; each item's own record, not its
    /// path, says whether it is the one. Nil when that does not settle it and the caller
    /// searches as usual: none of the keys recorded, a path not known, an item gone or replaced
    /// there, its collection locked, a shard the device protects now, or other clients' items
    /// in the default collection that could hold the key too.
    func fetchWhereLastSeen(_ query: ItemQuery, in group: String, writing: Bool, _ service: ServiceHandle) throws -> [Fetched]? {
        guard configuration.layout.masterPassword != nil, query.filters.itemClass != .internetPassword, query.filters.internet.isEmpty,
            let account = query.account, let name = query.service, !name.isEmpty
        else { return nil }
        if otherClientsMayHoldItems(service) { return nil }
        // The version what is kept must have been seen at: under this thread's hold, the one the
        // hold began with (nobody else changes the group meanwhile); else the version now, if no
        // holder is changing the group.
        let hold = Self.currentHold
        let version = writing ? hold?.startVersions[group] : locks.version(of: group).flatMap { $0 % 2 == 0 ? $0 : nil }
        guard let index = try trustedIndex(for: group, lockHeld: writing, service) else { return nil }
        let keys = (query.filters.synchronizable.map { [$0] } ?? [false, true])
            .map { PrimaryKey(group: group, account: account, service: name, synchronizable: $0) }
            .filter { index.shards[ShardIndex.Key($0)] != nil }
        guard !keys.isEmpty else { return nil }
        let device = configuration.deviceLock?()
        let allowed = { (path: String) -> Bool in
            guard let device, let protection = CollectionDirectory.protection(ofShard: CollectionDirectory.collection(ofItem: path)) else { return true }
            return device.allows(protection)
        }
        if let version, let kept = keptEntries(keys, in: group, at: version, hold: writing ? hold : nil), kept.allSatisfy({ allowed($0.path) }) {
            return matching(kept.map { Fetched(path: $0.path, envelope: $0.envelope) }, query)
        }
        var expected: [String: PrimaryKey] = [:]
        for key in keys {
            guard let path = directory.itemPath(of: key), allowed(path) else { return nil }
            expected[path] = key
        }
        let secrets: [String: Data]
        do {
            secrets = try client.secrets(service, paths: Array(expected.keys))
        } catch {
            guard error.kind == .noSuchObject || error.kind == .locked else { throw error }
            for key in keys { directory.forgetItem(key) }
            return nil
        }
        let decoder = JSONDecoder()
        var found: [Fetched] = []
        for (path, key) in expected {
            guard let bytes = secrets[path], ItemEnvelope.isEnvelope(bytes), let envelope = try? ItemEnvelope.decode(bytes, using: decoder),
                envelope.item.primaryKey == key
            else {
                directory.forgetItem(key)
                return nil
            }
            found.append(Fetched(path: path, envelope: envelope))
        }
        // Kept only when no holder can have changed the group while it was read.
        if let version, writing || locks.version(of: group) == version {
            recent.remember(found.map { ($0.envelope.item.primaryKey, RecentItems.Entry(path: $0.path, envelope: $0.envelope)) }, in: group, at: version)
        }
        return matching(found, query)
    }

    /// The entries of `keys` as this hold wrote them (when given) or as kept at `version`; nil
    /// unless every key is settled so (one the hold deleted is settled: gone).
    private func keptEntries(_ keys: [PrimaryKey], in group: String, at version: UInt32, hold: LockHold?) -> [RecentItems.Entry]? {
        var settled: [RecentItems.Entry] = []
        var rest: [PrimaryKey] = []
        for key in keys {
            switch hold?.entry(key) {
            case .some(.some(let entry)): settled.append(entry)
            case .some(.none): continue
            case .none: rest.append(key)
            }
        }
        guard !rest.isEmpty else { return settled }
        guard let kept = recent.entries(rest, in: group, at: version, maxAge: configuration.foreignItemsRecheckInterval) else { return nil }
        return settled + kept
    }

    /// `found` kept to what `query` matches, in insertion order.
    private func matching(_ found: [Fetched], _ query: ItemQuery) -> [Fetched] {
        found.filter { query.matchesSearchable($0.envelope.item) && query.filters.matches($0.envelope.item) }
            .sorted { ($0.envelope.sequence, $0.path) < ($1.envelope.sequence, $1.path) }
    }

    /// Whether the groups' indexes, read without their locks, show that nothing matches `query`:
    /// every group's index is trusted and names no shard for the query's account and service,
    /// and no other client's item may be in the default collection. A writer records an item
    /// before it creates it, so an item that exists, or is being created, is always named.
    func indexesRecordNoMatch(for query: ItemQuery, _ service: ServiceHandle) throws -> Bool {
        guard configuration.layout.masterPassword != nil else { return false }
        if otherClientsMayHoldItems(service) { return false }
        for group in Self.unique(query.groups) {
            guard let index = try trustedIndex(for: group, lockHeld: false, service),
                index.candidateShards(account: query.account, service: query.service).isEmpty
            else { return false }
        }
        return true
    }

    /// Whether other clients' items may sit in the default collection, where any query must look
    /// too: unless its last look, within ``Configuration/foreignItemsRecheckInterval``, found none.
    private func otherClientsMayHoldItems(_ service: ServiceHandle) -> Bool {
        configuration.adoptsForeignItems
            && directory.foreignItemsPresent(epoch: service.owner, within: configuration.foreignItemsRecheckInterval) != false
    }
}
