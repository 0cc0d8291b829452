import Foundation
import SharedKeychain

/// The keychain calls the cache is built from, with the SDKs' write discipline (IdentityCore
/// `cache/MSIDKeychainTokenCache.m`): reads are `SecItemCopyMatching` with `kSecMatchLimitAll`,
/// writes one update then at most one add (`saveData`), deletes one `SecItemDelete` per query. Each reports itself to the
/// configuration's ``KeychainCallTrace``; items that cannot be decoded are reported to its
/// ``SkippedItemReport``. It also keeps the group's wipe record (`saveWipeInfoWithContext`,
/// `wipeInfo:`) and, outside the group, the emulator's journal of deletions.
struct KeychainTokenCache: Sendable {
    /// The app's keychain.
    let keychain: Keychain
    /// The full access group every item lives in.
    let accessGroup: String
    /// The class new items get.
    let accessibility: Accessibility
    /// Where each call is reported, in order, or nil.
    let trace: KeychainCallTrace?
    /// Where items that cannot be decoded are reported, or nil.
    let skippedItems: SkippedItemReport?
    /// The clock of the wipe record and the journal.
    let now: @Sendable () -> Date

    /// `initWithGroup`: asks for the app's team ID first (``TeamIDProbe``), once per process
    /// and app.
    init(keychain: Keychain, configuration: TokenCacheConfiguration, now: @escaping @Sendable () -> Date) throws(TokenCacheError) {
        _ = try TeamIDProbe.defaultAccessGroup(of: keychain, trace: configuration.trace)
        self.keychain = keychain
        self.accessGroup = configuration.accessGroup(for: keychain.app)
        self.accessibility = configuration.accessibility
        self.trace = configuration.trace
        self.skippedItems = configuration.skippedItems
        self.now = now
    }

    /// Every item of the group, in one `copyMatching` with `kSecMatchLimitAll`.
    func snapshot() throws(TokenCacheError) -> CacheSnapshot {
        decoded(try items(matching: groupQuery))
    }

    /// `defaultKeychainQuery`: every generic password of the group (`kSecClassGenericPassword`,
    /// as every query of `MSIDKeychainTokenCache`), so the group's keys (the broker key) are
    /// neither read nor wiped with the cache.
    var groupQuery: KeychainQuery { KeychainQuery(group: accessGroup, filters: .init(itemClass: .genericPassword)) }

    /// The items matching `query`; none is an empty array, not an error.
    func items(matching query: KeychainQuery) throws(TokenCacheError) -> [KeychainItem] {
        do {
            let found = try keychain.copyMatching(query, limit: .all)
            record(.copyMatching, query, status: .success, count: found.count)
            return found
        } catch {
            record(.copyMatching, query, status: error.status, injected: error.injectedFault)
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

    /// `saveData`, as the SDKs write: one update on {group, account, service, type} (or
    /// `query`) with the data and generic; when nothing matched (-25300), one add with the
    /// configuration's accessibility. Any other status fails the item, -25299 from another
    /// app's add in between included: no retry, as in `MSIDKeychainTokenCache.m`.
    func saveData(_ data: Data, at layout: ItemLayout, query: KeychainQuery? = nil) throws(TokenCacheError) {
        let query = query ?? KeychainQuery(group: accessGroup, account: layout.account, service: layout.service, type: layout.type)
        do {
            try keychain.update(query, with: ItemChange(generic: layout.generic, data: data))
            record(.update, query, status: .success)
            return
        } catch {
            record(.update, query, status: error.status, injected: error.injectedFault)
            guard case .itemNotFound = error else { throw .keychain(error) }
        }
        let item = NewItem(
            account: layout.account, service: layout.service, group: accessGroup,
            generic: layout.generic, type: layout.type, data: data, accessibility: accessibility)
        do {
            try keychain.add(item)
            record(KeychainCall(
                function: .add, account: item.account, service: item.service, generic: item.generic.map { String(decoding: $0, as: UTF8.self) },
                type: item.type, accessibility: item.accessibility, status: .success))
        } catch {
            record(KeychainCall(
                function: .add, account: item.account, service: item.service, type: item.type, status: error.status,
                injected: error.injectedFault))
            throw .keychain(error)
        }
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
            record(.delete, query, status: .success, count: deleted)
            return deleted
        } catch {
            record(.delete, query, status: error.status, injected: error.injectedFault)
            guard case .itemNotFound = error else { throw .keychain(error) }
            return 0
        }
    }

    /// `saveWipeInfoWithContext`: records this app as the last one that deleted refresh tokens,
    /// update-then-add on {account `TokenWipe`, generic} (no service, no type).
    func saveWipeInfo() throws(TokenCacheError) {
        let record = WipeRecord(bundleID: keychain.app.bundleID, wipeTime: now())
        try saveData(try record.archive(), at: WipeRecord.layout, query: WipeRecord.query(in: accessGroup))
    }

    /// `wipeInfo:`: the first item with account `TokenWipe` and the record's generic, any
    /// service. A record that cannot be read counts as none, as in the SDK (which logs it), and
    /// is reported as skipped.
    func wipeInfo() throws(TokenCacheError) -> WipeRecord? {
        guard let item = try items(matching: WipeRecord.query(in: accessGroup)).first else { return nil }
        do {
            return try WipeRecord(data: item.data)
        } catch {
            reportSkipped(item, reason: error.reason)
            return nil
        }
    }

    /// Runs `deletion` between an intent and its end in the ``IntentJournal``: a process killed
    /// at any point leaves an intent that ``TokenCache/interruptedDeletions()`` reports. The
    /// intent is the emulator's record, outside the group; a device keeps none. The store's
    /// policy is asked first: a refused deletion writes no intent and no record.
    ///
    /// - Parameters:
    ///   - query: the deletion as people read it, for the intent.
    ///   - scope: the keychain query whose matches include `items`, for the policy.
    ///   - items: what the deletion will delete.
    func journaled(
        _ operation: String, query: String, scope: KeychainQuery, items: [KeychainItem],
        _ deletion: () throws(TokenCacheError) -> Int
    ) throws(TokenCacheError) -> Int {
        do { try keychain.authorizeDeletion(of: items, matching: scope) } catch { throw .keychain(error) }
        let journal = IntentJournal(store: keychain.store.journalStore, now: now)
        let intent: IntentJournal.Intent
        do {
            intent = try journal.begin(app: keychain.app.bundleID, operation: operation, group: accessGroup, query: query, items: items)
        } catch {
            throw .keychain(.storage(error))
        }
        let deleted = try deletion()
        FaultPoint.reached("after-delete")
        do { try journal.finish(intent, deleted: deleted) } catch { throw .keychain(.storage(error)) }
        return deleted
    }

    /// Tells the ``SkippedItemReport`` that `item` was skipped.
    func reportSkipped(_ item: KeychainItem, reason: String) {
        skippedItems?.report(item, reason: reason)
    }

    /// `items` decoded, the ones that cannot be reported as skipped.
    func decoded(_ items: [KeychainItem]) -> CacheSnapshot {
        let snapshot = CacheSnapshot(items: items)
        for skipped in snapshot.skipped { reportSkipped(skipped.item, reason: skipped.reason) }
        return snapshot
    }

    private func record(
        _ function: KeychainCall.Function, _ query: KeychainQuery, status: KeychainStatus, count: Int? = nil, injected: InjectedFault? = nil
    ) {
        record(KeychainCall(
            function: function, account: query.account, service: query.service,
            generic: query.generic.map { String(decoding: $0, as: UTF8.self) }, type: query.type, status: status, count: count,
            injected: injected))
    }

    private func record(_ call: KeychainCall) {
        trace?.record(call)
        CacheSaveRecorder.current?.record(call)
    }
}
