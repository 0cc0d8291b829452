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
    ///
    /// A failure does not fail the caller, as in `validateAndSaveTokenResponse` ("we log it,
    /// but we don't fail validation"): a failed account-metadata update is reported and the
    /// tokens are still saved; the first failed item ends the token save
    /// (`saveTokensWithConfiguration` returns NO), so the later items are not written.
    ///
    /// - Returns: the failed steps, in order; empty when everything was saved.
    @discardableResult
    func saveTokens(_ response: TokenResponse) -> [CacheSaveFailure] {
        // updateAccountMetadataForHomeAccountId: the sign-in state, then the authority map.
        let metadataFailure = CacheSaveRecorder.run(.accountMetadata) { () throws(TokenCacheError) in
            let homeAccountID = response.account.homeAccountID
            let metadata = try accountMetadata.updateSignInState(of: homeAccountID, to: .signedIn)
            if let request = response.requestAuthority, let result = response.resultAuthority {
                try accountMetadata.updateAuthorityURL(result, forRequest: request.url, homeAccountID: homeAccountID, current: metadata)
            }
        }
        let tokensFailure = CacheSaveRecorder.run(.tokens) { () throws(TokenCacheError) in try saveTokensWithConfiguration(response) }
        return [metadataFailure, tokensFailure].compactMap { $0 }
    }

    /// `saveTokensWithConfiguration`: the access token (after deleting the intersecting ones),
    /// the ID token, then the SSO state; the first failure stops it.
    func saveTokensWithConfiguration(_ response: TokenResponse) throws(TokenCacheError) {
        let account = response.account
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
        // A failed check is logged and the token saved the non-FRT way, as the SDK does.
        if refreshToken.family != nil, (try? credentialCache.checkFRTEnabled()) ?? false {
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

extension DefaultTokenCacheAccessor {
    /// `updateAppMetadataWithFamilyId`: this client's app metadata of this environment
    /// (`{service appmetadata-<cid>, type 3001}`) rewritten with `familyID`, or a new one when
    /// there is none. Silent acquisition calls it with `""` after the server answered a family
    /// refresh token with `client_mismatch`, so the app stops looking for family tokens.
    func updateAppMetadata(familyID: String) throws(TokenCacheError) {
        let layout = ItemLayout.appMetadata(environment: environment, clientID: clientID, familyID: nil)
        let found = try credentialCache.entries(matching: KeychainQuery(group: accessGroup, service: layout.service, type: layout.type))
        let client = CacheKey.normalized(clientID)
        let existing = found.appMetadata.map(\.value).filter {
            CacheKey.normalized($0.clientID) == client && CacheKey.normalized($0.environment) == environment
        }
        for var metadata in existing.isEmpty ? [AppMetadata(clientID: clientID, environment: environment, familyID: nil)] : existing {
            metadata.familyID = familyID
            try credentialCache.saveAppMetadata(metadata)
        }
    }
}
