import Foundation
import SharedKeychain

/// The cache's items by key over the keychain token cache (IdentityCore
/// `cache/accessor/MSIDAccountCredentialCache.m`): credentials, accounts and app metadata read
/// with a query and decoded, filtered in memory as `getCredentialsWithQuery` filters them;
/// written as the SDK writes them (an account merged with its previous JSON); a credential
/// removed with the wipe record after it when it is a refresh token; and the group's single-FRT
/// switch (`checkFRTEnabled`).
struct AccountCredentialCache: Sendable {
    /// The keychain calls under it.
    let keychainCache: KeychainTokenCache
    /// MSAL's `sfrt_v2` flight for this app, or nil.
    let singleFRTFlight: SingleFRTFlight?

    var accessGroup: String { keychainCache.accessGroup }

    /// The items `query` matches, decoded (`itemsWithKey`).
    func entries(matching query: KeychainQuery) throws(TokenCacheError) -> CacheSnapshot {
        keychainCache.decoded(try keychainCache.items(matching: query))
    }

    /// The group's items of `types`, one query per type, decoded.
    func entries(ofTypes types: [UInt32]) throws(TokenCacheError) -> CacheSnapshot {
        keychainCache.decoded(try keychainCache.items(ofTypes: types))
    }

    /// `getCredentialsWithQuery`: the credentials `query` matches.
    func credentials(matching query: KeychainQuery) throws(TokenCacheError) -> [CacheSnapshot.Entry<Credential>] {
        try entries(matching: query).credentials
    }

    /// `getAccountsWithQuery`: the account records `query` matches.
    func accounts(matching query: KeychainQuery) throws(TokenCacheError) -> [CachedAccount] {
        try entries(matching: query).accounts.map(\.value)
    }

    /// One user's items and a client's app metadata: two partial queries, whatever the size of
    /// the group.
    func items(ofHomeAccountID homeAccountID: String, environment: String, clientID: String) throws(TokenCacheError) -> CacheSnapshot {
        let metadata = ItemLayout.appMetadata(environment: environment, clientID: clientID, familyID: nil)
        let account = CacheKey.account(homeAccountID: homeAccountID, environment: environment)
        let items = try keychainCache.items(matching: KeychainQuery(group: accessGroup, account: account))
            + keychainCache.items(matching: KeychainQuery(group: accessGroup, account: metadata.account, service: metadata.service))
        return keychainCache.decoded(items)
    }

    /// `saveCredential`: the credential's JSON at its layout (the family token's, for a family
    /// refresh token saved as one).
    func saveCredential(_ credential: Credential, asFamilyToken: Bool = false) throws(TokenCacheError) {
        try keychainCache.saveData(CacheJSON.data(credential.fields), at: credential.layout(asFamilyToken: asFamilyToken))
    }

    /// `saveAppMetadata`.
    func saveAppMetadata(_ metadata: AppMetadata) throws(TokenCacheError) {
        try keychainCache.saveData(CacheJSON.data(metadata.fields), at: metadata.layout)
    }

    /// `saveAccount`: the previous JSON (`accountWithKey`: `{account, service <realm>, type}`)
    /// with `fields` over it, so fields it lacks survive.
    func saveAccount(_ account: CachedAccount, fields: JSONObject) throws(TokenCacheError) {
        let layout = account.layout
        let previous = try entries(matching: KeychainQuery(
            group: accessGroup, account: layout.account, service: layout.service, type: layout.type))
        let merged = (previous.objects[layout.address] ?? [:]).merging(fields) { _, new in new }
        try keychainCache.saveData(CacheJSON.data(merged), at: layout)
    }

    /// `removeCredential`: deletes the credential by its key, and after a refresh token writes
    /// the wipe record. Returns whether it deleted something.
    func removeCredential(_ entry: (item: KeychainItem, value: Credential)) throws(TokenCacheError) -> Bool {
        guard try keychainCache.deleteItem(entry.item) else { return false }
        if entry.value.type.isRefreshToken { try keychainCache.saveWipeInfo() }
        return true
    }
}
