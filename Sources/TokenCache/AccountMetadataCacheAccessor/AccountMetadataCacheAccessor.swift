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
    /// of the client's item): its entry, nil when it has none. While the client has no item at
    /// all, the records of the emulator's earlier layout (type 4001) are read instead, once per
    /// operation (`earlierLayout` keeps them): the first write of the item folds every record of
    /// the client in, so once it exists they have nothing more to say.
    func signInState(of homeAccountID: String, earlierLayout: inout CacheSnapshot?) throws(TokenCacheError) -> SignInState? {
        if let stored = try readAccountMetadata() {
            guard let entry = stored.value.entry(for: homeAccountID), entry.state != .unknown else { return nil }
            return entry.state
        }
        if earlierLayout == nil { earlierLayout = try earlierLayoutRecords() }
        return earlierLayout?.legacyRecords(clientID: clientID, homeAccountID: homeAccountID).last?.value.state
    }

    /// The sign-in records of the emulator's earlier layout (`{type 4001}`): an emulator-only read.
    func earlierLayoutRecords() throws(TokenCacheError) -> CacheSnapshot {
        keychainCache.decoded(try keychainCache.items(matching: KeychainQuery(group: keychainCache.accessGroup, type: ItemType.legacySignInState)))
    }

    /// `updateSignInStateForHomeAccountId`: reads the client's item, sets `state` for the
    /// account, and writes it back only when that changed it. Records of the emulator's earlier
    /// layout are folded in first and deleted once the item is written: when the item is
    /// created, every record of the client (from `legacy`, else read); otherwise this account's
    /// records in `legacy`, if given.
    /// Returns the item as it now is.
    @discardableResult
    func updateSignInState(of homeAccountID: String, to state: SignInState, legacy: CacheSnapshot? = nil) throws(TokenCacheError)
        -> AccountMetadataItem
    {
        let stored = try readAccountMetadata()
        var metadata = stored?.value ?? AccountMetadataItem(clientID: clientID)
        let old: [CacheSnapshot.Entry<LegacySignInRecord>]
        if stored == nil {
            let records = if let legacy { legacy } else { try earlierLayoutRecords() }
            old = records.legacyRecords(clientID: clientID)
        } else {
            old = legacy?.legacyRecords(clientID: clientID, homeAccountID: homeAccountID) ?? []
        }
        // The last record of an account wins, as reads took the last.
        var converted: [String: (homeAccountID: String, state: SignInState)] = [:]
        for record in old { converted[CacheKey.normalized(record.value.homeAccountID)] = (record.value.homeAccountID, record.value.state) }
        for (homeAccountID, state) in converted.values where metadata.entry(for: homeAccountID) == nil {
            metadata.setState(state, for: homeAccountID)
        }
        metadata.setState(state, for: homeAccountID)
        if stored.map({ $0.value != metadata }) ?? true {
            try keychainCache.store(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
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
        try keychainCache.store(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
    }
}
