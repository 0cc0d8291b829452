import Foundation
import SharedKeychain

/// This client's account metadata, read and written as IdentityCore's
/// `cache/metadata/MSIDAccountMetadataCacheAccessor.m` does: always from the keychain,
/// read-modify-write of the one item the whole client ID shares, with no lock, and no write
/// when nothing changed. It holds each account's sign-in state for the client.
struct AccountMetadataCacheAccessor: Sendable {
    /// The keychain calls under it.
    let keychainCache: KeychainTokenCache
    /// The client whose item it reads and writes.
    let clientID: String

    /// This client's account-metadata item as stored now (one `SecItemCopyMatching`), with the
    /// decoded value; nil when there is none.
    func readAccountMetadata() throws(TokenCacheError) -> CacheSnapshot.Entry<AccountMetadataItem>? {
        let layout = AccountMetadataItem.layout(clientID: clientID)
        let found = try keychainCache.items(matching: KeychainQuery(
            group: keychainCache.accessGroup, account: layout.account, service: layout.service, type: layout.type))
        return keychainCache.decoded(found).accountMetadata(clientID: clientID)
    }

    /// This client's sign-in state for `homeAccountID` (`signInStateForHomeAccountId`, one read
    /// of the client's item): its entry, nil when it has none.
    func signInState(of homeAccountID: String) throws(TokenCacheError) -> SignInState? {
        guard let stored = try readAccountMetadata(),
            let entry = stored.value.entry(for: homeAccountID), entry.state != .unknown
        else { return nil }
        return entry.state
    }

    /// `updateSignInStateForHomeAccountId`: reads the client's item, sets `state` for the
    /// account, and writes it back only when that changed it. When the caller read the whole
    /// group anyway (`legacy`: removals), records of the emulator's earlier layout in it are
    /// folded in first and deleted once the item is written: every record of the client when
    /// the item is created, else this account's. Nothing else reads them (see
    /// ``TokenCache/convertEarlierLayout()``). Returns the item as it now is.
    @discardableResult
    func updateSignInState(of homeAccountID: String, to state: SignInState, legacy: CacheSnapshot? = nil) throws(TokenCacheError)
        -> AccountMetadataItem
    {
        let stored = try readAccountMetadata()
        var metadata = stored?.value ?? AccountMetadataItem(clientID: clientID)
        let old = stored == nil
            ? legacy?.legacyRecords(clientID: clientID) ?? []
            : legacy?.legacyRecords(clientID: clientID, homeAccountID: homeAccountID) ?? []
        Self.fold(old, into: &metadata)
        metadata.setState(state, for: homeAccountID)
        if stored.map({ $0.value != metadata }) ?? true {
            try keychainCache.saveData(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
        }
        for record in old { _ = try keychainCache.deleteItem(record.item) }
        return metadata
    }

    /// `getAuthorityURL:homeAccountId:clientId:instanceAware:` (one read of the client's item,
    /// as a process without the item in its memory cache makes it): the authority an earlier
    /// response to `requestAuthority` came from, or nil.
    func authorityURL(forRequest requestAuthority: String, homeAccountID: String) throws(TokenCacheError) -> String? {
        try readAccountMetadata()?.value.cachedAuthorityURL(forRequest: requestAuthority, homeAccountID: homeAccountID)
    }

    /// `updateAuthorityURL:forRequestURL:homeAccountId:clientId:instanceAware:`: nothing when the
    /// two authorities are the same or the entry already maps them (and is `signed_in`);
    /// otherwise the map entry is set and the item written again. `current` is the item as the
    /// sign-in state update just left it (the SDK's memory cache), so no read is made.
    func updateAuthorityURL(
        _ resultAuthority: String, forRequest requestAuthority: String, homeAccountID: String, current: AccountMetadataItem
    ) throws(TokenCacheError) {
        guard resultAuthority != requestAuthority else { return }
        if current.cachedAuthorityURL(forRequest: requestAuthority, homeAccountID: homeAccountID) == resultAuthority,
           current.entry(for: homeAccountID)?.state == .signedIn { return }
        var metadata = current
        metadata.setCachedAuthorityURL(resultAuthority, forRequest: requestAuthority, homeAccountID: homeAccountID)
        try keychainCache.saveData(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
    }

    /// Folds every record of the client in `snapshot` (a whole-group read) into the client's
    /// item, where the item has no entry for the account, writes it when that changed it, and
    /// deletes the records; returns how many were deleted.
    func convertEarlierLayout(in snapshot: CacheSnapshot) throws(TokenCacheError) -> Int {
        let records = snapshot.legacyRecords(clientID: clientID)
        guard !records.isEmpty else { return 0 }
        let stored = try readAccountMetadata()
        var metadata = stored?.value ?? AccountMetadataItem(clientID: clientID)
        Self.fold(records, into: &metadata)
        if stored.map({ $0.value != metadata }) ?? true {
            try keychainCache.saveData(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
        }
        var deleted = 0
        for record in records where try keychainCache.deleteItem(record.item) { deleted += 1 }
        return deleted
    }

    /// Sets each account's state from `records` where `metadata` has no entry for it; the last
    /// record of an account wins, as reads took the last.
    private static func fold(_ records: [CacheSnapshot.Entry<LegacySignInRecord>], into metadata: inout AccountMetadataItem) {
        var converted: [String: (homeAccountID: String, state: SignInState)] = [:]
        for record in records { converted[CacheKey.normalized(record.value.homeAccountID)] = (record.value.homeAccountID, record.value.state) }
        for (homeAccountID, state) in converted.values where metadata.entry(for: homeAccountID) == nil {
            metadata.setState(state, for: homeAccountID)
        }
    }
}
