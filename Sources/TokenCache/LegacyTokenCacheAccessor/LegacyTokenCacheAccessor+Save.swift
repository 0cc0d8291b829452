import Foundation
import SharedKeychain

extension LegacyTokenCacheAccessor {
    /// An ADAL app's token response, saved as ADAL saves it: IdentityCore's legacy accessor
    /// (`MSIDLegacyTokenCacheAccessor saveTokensWithConfiguration`, multi-resource response)
    /// with MSAL's default accessor as its other accessor (ADAL `ADALMSIDDataSourceWrapper`):
    ///
    /// 1. the legacy access token for the resource (`saveAccessTokenWithConfiguration`);
    /// 2. the legacy refresh token, and when the response names a family a copy with client ID
    ///    `foci-<fid>` (`saveRefreshToken:`);
    /// 3. the default accessor's SSO state: MSAL-format refresh token(s), app metadata and
    ///    account (``DefaultTokenCacheAccessor/saveSSOState(_:)`` of `otherAccessor`). No MSAL access token, no ID token, and no account
    ///    metadata: ADAL keeps no sign-in state.
    ///
    /// Each item is written update-then-add with accessibility `afterFirstUnlockThisDeviceOnly`.
    func saveTokens(_ response: TokenResponse, realm: String, otherAccessor: DefaultTokenCacheAccessor) throws(TokenCacheError) {
        let userID = response.user.username
        let resource = LegacyResource.resource(forScopes: response.scopes)
        let accessToken = LegacyTokenCacheItem(
            authority: LegacyTokenCacheKey.authority(environment: environment, realm: realm),
            accessToken: response.accessToken, idToken: response.idToken, clientID: clientID, resource: resource,
            expiresOn: response.expiresOn, cachedAt: response.issuedAt, extendedExpiresOn: response.extendedExpiresOn,
            homeAccountID: response.user.homeAccountID)
        try save(accessToken, userID: userID)
        var refreshToken = LegacyTokenCacheItem(
            authority: accessToken.authority, refreshToken: response.refreshToken, idToken: response.idToken,
            clientID: clientID, familyID: response.familyID, homeAccountID: response.user.homeAccountID)
        try save(refreshToken, userID: userID)
        if let family = response.familyID, !family.trimmingWhitespace.isEmpty {
            // "If it's an FRT, save it separately and update the clientId of the token item".
            refreshToken.clientID = LegacyResource.familyClientID(family)
            try save(refreshToken, userID: userID)
        }
        try otherAccessor.saveSSOState(response)
    }

    /// `MSIDLegacyTokenCacheAccessor saveToken:`: the item archived, at the key of its
    /// environment, realm, client, resource and user.
    func save(_ item: LegacyTokenCacheItem, userID: String) throws(TokenCacheError) {
        let key = LegacyTokenCacheKey(authority: item.authority, clientID: item.clientID, resource: item.resource, userID: userID)
        try keychainCache.saveData(try item.archive(), at: key.layout)
    }
}

/// How the emulator maps MSAL's request terms onto ADAL's.
enum LegacyResource {
    /// The resource Microsoft Graph has in ADAL (v1) requests.
    static let graph = "https://graph.microsoft.com"

    /// ADAL asks for a resource, not scopes: the resource of the first scope that names one
    /// (`https://host/scope`), else Microsoft Graph, the resource bare scopes such as `user.read`
    /// belong to.
    static func resource(forScopes scopes: [String]) -> String {
        for scope in scopes {
            guard let url = URLComponents(string: scope), let scheme = url.scheme, let host = url.host, !host.isEmpty else { continue }
            return "\(scheme)://\(host)"
        }
        return graph
    }

    /// The realm of an ADAL app's authority for a sign-in in `tenant`: as given, `common` when
    /// blank (IdentityCore's legacy tokens take `configuration.authority.realm`).
    static func realm(forTenant tenant: String) -> String {
        let realm = CacheKey.normalized(tenant)
        return realm.isEmpty ? "common" : realm
    }

    /// `MSIDCacheKey familyClientId:`: `foci-<fid>`, `foci-1` for a nil family.
    static func familyClientID(_ familyID: String?) -> String {
        "foci-\(familyID.map(CacheKey.normalized).flatMap { $0.isEmpty ? nil : $0 } ?? "1")"
    }
}
