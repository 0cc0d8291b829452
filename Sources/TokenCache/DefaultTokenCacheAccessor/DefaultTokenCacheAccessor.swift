import Foundation
import SharedKeychain

/// MSAL's items, read and written as IdentityCore's
/// `cache/accessor/MSIDDefaultTokenCacheAccessor.m` does over the account credential cache:
/// token responses saved (``saveTokens(_:)``, ``saveSSOState(_:)``), the lookups silent
/// acquisition makes, the account list, and removals. ADAL's legacy accessor is its other
/// accessor (`otherCacheAccessors`): lookups fall back to it, removals reach into it. Sign-in
/// states live in the client's account metadata.
struct DefaultTokenCacheAccessor: Sendable {
    /// The credentials, accounts and app metadata by key.
    let credentialCache: AccountCredentialCache
    /// This client's account metadata.
    let accountMetadata: AccountMetadataCacheAccessor
    /// ADAL's legacy items, which MSAL reads as a fallback.
    let otherAccessor: LegacyTokenCacheAccessor
    /// The app's client ID.
    let clientID: String
    /// The cache's environment, which items are written under (the cloud's `preferred_cache`).
    let environment: String
    /// The SDK the app is built with.
    let sdk: TokenCacheSDK
    /// The family the emulated server puts the app in, or nil.
    let familyID: String?
    /// The environments the SDK's alias lookups match (`defaultCacheEnvironmentAliases`).
    let environmentAliases: EnvironmentAliases

    /// The keychain calls beneath the credential cache: whole-group reads, deletes, the wipe
    /// record and the deletion journal.
    var keychainCache: KeychainTokenCache { credentialCache.keychainCache }
    var accessGroup: String { keychainCache.accessGroup }

    /// Writes a token response in IdentityCore's order (`MSIDTokenResponseValidator`
    /// `validateAndSaveTokenResponse`, `MSIDDefaultTokenCacheAccessor`
    /// `saveTokensWithConfiguration`): this client's account metadata set `signed_in` (written
    /// only when that changes it), then, when the request authority (`/common`, a domain)
    /// differs from the result's (`/<tid>`), its authority map entry (`updateAuthorityURL`: the
    /// item written a second time, unless it already maps them); access tokens of the account, client and realm whose scopes
    /// intersect the new one's deleted; then the access token, the ID token, the family refresh
    /// token (when the response names a family), the client's own refresh token WITHOUT
    /// `family_id` ("Save a separate entry for MRRT"), the app metadata and the account, each
    /// written whether or not it changed. The account is merged with its previous JSON
    /// (`MSIDAccountCredentialCache saveAccount`).
    ///
    /// Its reads are the SDK's: the account metadata, the access tokens of the account, client
    /// and realm (`{account, generic accesstoken-<cid>-<realm>, type 2001}`, filtered by
    /// scope), `useSingleFRT` for a family response, and the previous account record.
    func saveTokens(_ response: TokenResponse) throws(TokenCacheError) {
        let account = response.account
        let metadata = try accountMetadata.updateSignInState(of: account.homeAccountID, to: .signedIn)
        if let request = response.requestAuthority, let result = response.resultAuthority {
            try accountMetadata.updateAuthorityURL(result, forRequest: request.url, homeAccountID: account.homeAccountID, current: metadata)
        }
        let accessToken = response.accessTokenCredential
        let home = CacheKey.normalized(account.homeAccountID)
        let accessTokenLayout = accessToken.layout()
        let intersecting = try credentialCache.entries(matching: KeychainQuery(
            group: accessGroup, account: accessTokenLayout.account, generic: accessTokenLayout.generic, type: accessTokenLayout.type))
        for entry in intersecting.credentials where entry.value.type == .accessToken {
            let token = entry.value
            // Exact, not by alias: the SDK's query names the token's storage environment.
            guard CacheKey.normalized(token.homeAccountID) == home, CacheKey.normalized(token.environment) == environment,
                CacheKey.normalized(token.clientID) == CacheKey.normalized(clientID),
                CacheKey.normalized(token.realm ?? "") == CacheKey.normalized(accessToken.realm ?? ""),
                !token.scopes.isDisjoint(with: accessToken.scopes)
            else { continue }
            _ = try keychainCache.deleteItem(entry.item)
        }
        try credentialCache.saveCredential(accessToken)
        try credentialCache.saveCredential(response.idTokenCredential)
        try saveSSOState(response)
    }

    /// The default accessor's `saveSSOStateWithConfiguration`: the family refresh token (when the
    /// response names a family), the client's own refresh token without `family_id`, the app
    /// metadata and the merged account. ADAL's legacy accessor calls it too, after its own items.
    func saveSSOState(_ response: TokenResponse) throws(TokenCacheError) {
        let account = response.account
        var refreshToken = response.refreshTokenCredential
        if refreshToken.family != nil, try credentialCache.checkFRTEnabled() {
            // Single-FRT mode: one FamilyRefreshToken (type 2008) and no per-client copy.
            refreshToken.type = .familyRefreshToken
            try credentialCache.saveCredential(refreshToken, asFamilyToken: true)
        } else {
            if refreshToken.family != nil {
                try credentialCache.saveCredential(refreshToken, asFamilyToken: true)
            }
            refreshToken.familyID = nil
            try credentialCache.saveCredential(refreshToken)
        }
        try credentialCache.saveAppMetadata(response.appMetadata)
        try credentialCache.saveAccount(account, fields: account.fields(clientInfo: response.user.clientInfo))
    }
}
