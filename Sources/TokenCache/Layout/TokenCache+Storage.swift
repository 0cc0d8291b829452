import Foundation
import SharedKeychain

/// The keychain operations the cache is built from, with the SDKs' write discipline.
extension TokenCache {
    /// Every item of the group, in one `copyMatching` with `kSecMatchLimitAll`.
    func snapshot() throws(TokenCacheError) -> CacheSnapshot {
        CacheSnapshot(items: try items(matching: KeychainQuery(group: accessGroup)))
    }

    /// The items matching `query`; none is an empty array, not an error.
    func items(matching query: KeychainQuery) throws(TokenCacheError) -> [KeychainItem] {
        do {
            return try keychain.copyMatching(query, limit: .all)
        } catch {
            guard case .itemNotFound = error else { throw .keychain(error) }
            return []
        }
    }

    /// The group's items of `types`, one partial query per type: what those items cost to read,
    /// whatever else the group holds.
    func items(ofTypes types: [Int]) throws(TokenCacheError) -> [KeychainItem] {
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

    /// The stored JSON of one user's items and of this app's metadata, for rewrites.
    func existingObjects(homeAccountID: String) throws(TokenCacheError) -> [ItemAddress: JSONObject] {
        var objects: [ItemAddress: JSONObject] = [:]
        for item in try itemsOf(homeAccountID: homeAccountID) {
            if let object = CacheJSON.object(from: item.data) { objects[ItemAddress(account: item.account, service: item.service)] = object }
        }
        return objects
    }

    /// Writes `fields` at `layout` over the JSON stored there, keeping the keys this module does
    /// not manage (`managedKeys`). A write that would store what is already there is skipped, as
    /// the SDKs skip unchanged app metadata and account records: on a real device such a write
    /// costs a keychain round trip, and here it costs gnome-keyring a rewrite of a whole file.
    func write(_ fields: JSONObject, managedKeys: Set<String>, at layout: ItemLayout, over existing: [ItemAddress: JSONObject]) throws(TokenCacheError) {
        let stored = existing[layout.address]
        let object = CacheJSON.overlay(fields, on: stored, managedKeys: managedKeys)
        guard object != stored else { return }
        try store(CacheJSON.data(object), at: layout)
    }

    /// Update-then-add, as the SDKs write: update on {group, account, service, type}; when
    /// nothing matched, add; when that add loses a race to another app's add, update again, and
    /// when a wipe took that item meanwhile, add again: a write ends with the item written.
    func store(_ data: Data, at layout: ItemLayout) throws(TokenCacheError) {
        let query = KeychainQuery(group: accessGroup, account: layout.account, service: layout.service, type: layout.type)
        let change = ItemChange(generic: layout.generic, data: data)
        let item = NewItem(
            account: layout.account, service: layout.service, group: accessGroup,
            generic: layout.generic, type: layout.type, data: data, accessibility: configuration.accessibility)
        // Each round loses only to another app's write or wipe in between; a few always suffice.
        var lastError = KeychainError.itemNotFound(query: query.description)
        for _ in 0..<8 {
            do {
                try keychain.update(query, with: change)
                return
            } catch {
                guard case .itemNotFound = error else { throw .keychain(error) }
            }
            do {
                try keychain.add(item)
                return
            } catch {
                guard case .duplicateItem = error else { throw .keychain(error) }
                lastError = error
            }
        }
        throw .keychain(lastError)
    }

    /// Deletes the one item at `item`'s primary key; one already gone is not an error.
    /// Returns whether it deleted something.
    func deleteItem(_ item: KeychainItem) throws(TokenCacheError) -> Bool {
        do {
            try keychain.delete(KeychainQuery(group: accessGroup, account: item.account, service: item.service, type: item.type))
            return true
        } catch {
            guard case .itemNotFound = error else { throw .keychain(error) }
            return false
        }
    }

    /// Deletes everything `query` matches; returns how many (none is zero, not an error).
    func deleteAll(_ query: KeychainQuery) throws(TokenCacheError) -> Int {
        do {
            return try keychain.delete(query)
        } catch {
            guard case .itemNotFound = error else { throw .keychain(error) }
            return 0
        }
    }

    /// Records this app as the last one that deleted tokens.
    func writeWipeRecord() throws(TokenCacheError) {
        try store(WipeRecord(bundleID: keychain.app.bundleID, wipeTime: now()).data, at: WipeRecord.layout)
    }
}
