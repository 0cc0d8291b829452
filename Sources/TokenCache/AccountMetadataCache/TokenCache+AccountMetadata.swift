import Foundation
import SharedKeychain

/// Reading and writing this client's account metadata as IdentityCore's
/// `MSIDAccountMetadataCacheAccessor` does: always from the keychain, read-modify-write with no
/// lock, and no write when nothing changed.
extension TokenCache {
    /// This client's account-metadata item as stored now (one `SecItemCopyMatching`), with the
    /// decoded value; nil when there is none.
    func readAccountMetadata() throws(TokenCacheError) -> CacheSnapshot.Entry<AccountMetadataItem>? {
        let layout = AccountMetadataItem.layout(clientID: clientID)
        let found = try items(matching: KeychainQuery(group: accessGroup, account: layout.account, service: layout.service, type: layout.type))
        return CacheSnapshot(items: found).accountMetadata(clientID: clientID)
    }

    /// This client's sign-in state for `homeAccountID`: its account metadata (read now), else a
    /// record of the emulator's earlier layout in `legacy`, else nil.
    func signInState(of homeAccountID: String, legacy: CacheSnapshot = CacheSnapshot(items: [])) throws(TokenCacheError) -> SignInState? {
        legacy.signInState(clientID: clientID, homeAccountID: homeAccountID, metadata: try readAccountMetadata()?.value)
    }

    /// `updateSignInStateForHomeAccountId`: reads the client's item, sets `state` for the
    /// account, and writes it back only when that changed it. Records of the earlier layout in
    /// `legacy` for this account are folded in first and deleted once the item is written.
    func updateSignInState(of homeAccountID: String, to state: SignInState, legacy: CacheSnapshot? = nil) throws(TokenCacheError) {
        let stored = try readAccountMetadata()
        var metadata = stored?.value ?? AccountMetadataItem(clientID: clientID)
        let old = legacy?.legacyRecords(clientID: clientID, homeAccountID: homeAccountID) ?? []
        if metadata.entry(for: homeAccountID) == nil, let converted = old.last?.value.state {
            metadata.setState(converted, for: homeAccountID)
        }
        metadata.setState(state, for: homeAccountID)
        if stored.map({ $0.value != metadata }) ?? true {
            try store(CacheJSON.data(metadata.fields), at: AccountMetadataItem.layout(clientID: clientID))
        }
        for record in old { _ = try deleteItem(record.item) }
    }
}
