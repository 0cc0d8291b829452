import Foundation
import SharedKeychain

/// The keychain calls the cache is built from, with the SDKs' write discipline
/// (IdentityCore `cache/MSIDKeychainTokenCache.m`): reads are `SecItemCopyMatching` with
/// `kSecMatchLimitAll`, writes update-then-add, deletes one `SecItemDelete` per query. Each
/// reports itself to the configuration's ``KeychainCallTrace``.
extension TokenCache {
    /// Every item of the group, in one `copyMatching` with `kSecMatchLimitAll`.
    func snapshot() throws(TokenCacheError) -> CacheSnapshot {
        decoded(try items(matching: KeychainQuery(group: accessGroup)))
    }

    /// The items matching `query`; none is an empty array, not an error.
    func items(matching query: KeychainQuery) throws(TokenCacheError) -> [KeychainItem] {
        do {
            let found = try keychain.copyMatching(query, limit: .all)
            trace(.copyMatching, query, status: .success, count: found.count)
            return found
        } catch {
            trace(.copyMatching, query, status: error.status)
            guard case .itemNotFound = error else { throw .keychain(error) }
            return []
        }
    }

    /// The group's items of `types`, one partial query per type: what those items cost to read,
    /// whatever else the group holds.
    func items(ofTypes types: [UInt32]) throws(TokenCacheError) -> [KeychainItem] {
        var found: [KeychainItem] = []
        for type in types { found += try items(matching: KeychainQuery(group: accessGroup, type: type)) }
        return found
    }

    /// One user's items and this app's metadata: two partial queries, whatever the size of
    /// the group.
    func itemsOf(homeAccountID: String) throws(TokenCacheError) -> [KeychainItem] {
        let metadata = ItemLayout.appMetadata(environment: environment, clientID: clientID, familyID: nil)
        let account = CacheKey.account(homeAccountID: homeAccountID, environment: environment)
        return try items(matching: KeychainQuery(group: accessGroup, account: account))
            + items(matching: KeychainQuery(group: accessGroup, account: metadata.account, service: metadata.service))
    }

    /// Update-then-add, as the SDKs write (`saveData`): update on {group, account, service,
    /// type} (or `query`) with the data and generic; when nothing matched, add with the
    /// configuration's accessibility. When that add loses a race to another app's add, update
    /// again, and when a wipe took the item meanwhile, add again: a write ends with it written.
    func store(_ data: Data, at layout: ItemLayout, query: KeychainQuery? = nil) throws(TokenCacheError) {
        let query = query ?? KeychainQuery(group: accessGroup, account: layout.account, service: layout.service, type: layout.type)
        let change = ItemChange(generic: layout.generic, data: data)
        let item = NewItem(
            account: layout.account, service: layout.service, group: accessGroup,
            generic: layout.generic, type: layout.type, data: data, accessibility: configuration.accessibility)
        // Each round loses only to another app's write or wipe in between; a few always suffice.
        var lastError = KeychainError.itemNotFound(query: query.description)
        for _ in 0..<8 {
            do {
                try keychain.update(query, with: change)
                trace(.update, query, status: .success)
                return
            } catch {
                trace(.update, query, status: error.status)
                guard case .itemNotFound = error else { throw .keychain(error) }
            }
            do {
                try keychain.add(item)
                trace(KeychainCall(
                    function: .add, account: item.account, service: item.service, generic: item.generic.map { String(decoding: $0, as: UTF8.self) },
                    type: item.type, accessibility: item.accessibility, status: .success))
                return
            } catch {
                trace(KeychainCall(function: .add, account: item.account, service: item.service, type: item.type, status: error.status))
                guard case .duplicateItem = error else { throw .keychain(error) }
                lastError = error
            }
        }
        throw .keychain(lastError)
    }

    /// Deletes the one item at `item`'s primary key; one already gone is not an error.
    /// Returns whether it deleted something.
    func deleteItem(_ item: KeychainItem) throws(TokenCacheError) -> Bool {
        try deleteAll(KeychainQuery(group: accessGroup, account: item.account, service: item.service, type: item.type)) > 0
    }

    /// Deletes everything `query` matches; returns how many (none is zero, not an error).
    func deleteAll(_ query: KeychainQuery) throws(TokenCacheError) -> Int {
        do {
            let deleted = try keychain.delete(query)
            trace(.delete, query, status: .success, count: deleted)
            return deleted
        } catch {
            trace(.delete, query, status: error.status)
            guard case .itemNotFound = error else { throw .keychain(error) }
            return 0
        }
    }

    /// `saveWipeInfoWithContext`: records this app as the last one that deleted refresh tokens,
    /// update-then-add on {account `TokenWipe`, generic} (no service, no type).
    func writeWipeRecord() throws(TokenCacheError) {
        let record = WipeRecord(bundleID: keychain.app.bundleID, wipeTime: now())
        try store(try record.archive(), at: WipeRecord.layout, query: WipeRecord.query(in: accessGroup))
    }

    private func trace(_ function: KeychainCall.Function, _ query: KeychainQuery, status: KeychainStatus, count: Int? = nil) {
        trace(KeychainCall(
            function: function, account: query.account, service: query.service,
            generic: query.generic.map { String(decoding: $0, as: UTF8.self) }, type: query.type, status: status, count: count))
    }

    private func trace(_ call: KeychainCall) {
        configuration.trace?.record(call)
    }
}
