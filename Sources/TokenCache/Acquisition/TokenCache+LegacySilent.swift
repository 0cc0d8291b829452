import Foundation
import SharedKeychain

extension TokenCache {
    /// ADAL's `acquireTokenSilent` (ADAL `ADALAcquireTokenSilentHandler.m` over IdentityCore's
    /// legacy accessor, with MSAL's default accessor as its other accessor):
    ///
    /// 1. the legacy access token for the resource, when it does not expire within
    ///    ``expirationMargin`` (`getAccessToken`, skipped by `forceRefresh`);
    /// 2. the multi-resource refresh token: the app's legacy one, else the app's MSAL-format
    ///    one (`tryMRRT`, `getRefreshTokenWithAccount` with no family);
    /// 3. when that token names a family, the family's first: the legacy `foci-<fid>` copy, else
    ///    MSAL's family refresh token (`tryFRT`), then the app's own; with no token of its own,
    ///    the family's of family `1`, as ADAL assumes.
    ///
    /// A redeemed token's response is saved as ADAL saves it (``LegacyTokenCacheAccessor/saveTokens(_:realm:otherAccessor:)``).
    /// Legacy keys are looked up under the account's tenant, then `common`.
    func acquireTokenSilentLegacy(account identifier: String, scopes: [String], forceRefresh: Bool) throws(TokenCacheError)
        -> AuthenticationResult
    {
        let account = try legacyUser(named: identifier)
        let resource = LegacyResource.resource(forScopes: scopes)
        let realms = legacyAccessor.lookupRealms(for: account)
        let date = now()
        if !forceRefresh {
            for realm in realms {
                let key = LegacyTokenCacheKey(environment: environment, realm: realm, clientID: clientID, resource: resource, userID: account.username)
                guard let found = try legacyAccessor.token(at: key), found.value.kind == .accessToken, let token = found.value.accessToken,
                      let expiresOn = found.value.expiresOn, expiresOn > date.addingTimeInterval(Self.expirationMargin)
                else { continue }
                return AuthenticationResult(
                    accessToken: TokenSecret(token), idToken: found.value.idToken.map(TokenSecret.init), scopes: scopes,
                    expiresOn: expiresOn, account: found.value.account ?? account, tenantID: account.tenantID, source: .cache)
            }
        }
        let snapshot = try credentialCache.items(ofHomeAccountID: account.homeAccountID, environment: environment, clientID: clientID)
        let msalFormat = { (type: CredentialType, client: String) in
            snapshot.credential(at: ItemLayout.credential(
                type, homeAccountID: account.homeAccountID, environment: self.environment, clientOrFamilyID: client, realm: nil, target: nil))
        }
        // tryMRRT: the legacy accessor, then its other accessor (MSAL's format).
        let ownLegacy = try legacyAccessor.refreshToken(userID: account.username, clientID: clientID, realms: realms)
        let own = ownLegacy.map { legacyAccessor.credential(from: $0, account: account) } ?? msalFormat(.refreshToken, clientID)
        let ownFamily = ownLegacy?.value.familyID ?? own?.value.family
        // tryFRT: the family the app's token names, or "1".
        let family = ownFamily ?? Self.defaultFamilyID
        let familyToken: CacheSnapshot.Entry<Credential>?
        if let copy = try legacyAccessor.refreshToken(userID: account.username, clientID: LegacyResource.familyClientID(family), realms: realms) {
            familyToken = legacyAccessor.credential(from: copy, account: account)
        } else {
            familyToken = msalFormat(.refreshToken, family)
        }
        let ordered: [(CacheSnapshot.Entry<Credential>, isFamily: Bool)?] = ownFamily != nil || own == nil
            ? [familyToken.map { ($0, isFamily: true) }, own.map { ($0, isFamily: false) }]
            : [own.map { ($0, isFamily: false) }, familyToken.map { ($0, isFamily: true) }]
        var refusals: [String] = []
        for case let (entry, isFamily)? in ordered {
            if let refusal = issuer.refusal(of: entry.value, asFamilyToken: isFamily, clientID: clientID, familyID: serverFamilyID) {
                refusals.append(refusal.description)
                continue
            }
            let response = issuer.issue(
                to: issuer.user(for: account), clientID: clientID, familyID: serverFamilyID,
                environment: environment, scopes: scopes, at: date)
            // The new tokens go where the redeemed legacy token was, else under `common`.
            let legacyAuthority = LegacyTokenCacheKey.isLegacy(entry.item)
                ? LegacyTokenCacheKey.components(ofService: entry.item.service)?.authority : nil
            let realm = legacyAuthority.map(LegacyTokenCacheItem.realm(ofAuthority:)) ?? ""
            let failures = legacySaveFailures { () throws(TokenCacheError) in
                try legacyAccessor.saveTokens(response, realm: realm.isEmpty ? "common" : realm, otherAccessor: defaultAccessor)
            }
            return result(of: response, source: isFamily ? .familyRefreshToken : .refreshToken, cacheSaveFailures: failures)
        }
        let reason = refusals.isEmpty
            ? "no ADAL refresh token of client \(clientID) or family \(family) (foci-\(family)) for \(DisplayText(account.username))"
            : "the refresh tokens for \(DisplayText(account.username)) were refused: \(refusals.joined(separator: "; "))"
        throw .interactionRequired(reason: reason, lastWipe: try? keychainCache.wipeInfo())
    }

    /// The user an ADAL call names (ADAL identifies users by their UPN): from the account records
    /// MSAL's format keeps, else from the legacy items' ID tokens, else a UPN on its own.
    func legacyUser(named identifier: String) throws(TokenCacheError) -> CachedAccount {
        let accounts = try credentialCache.entries(ofTypes: Array(ItemType.accounts))
        if let account = accounts.account(named: identifier, in: configuration.environmentAliases) { return account }
        if let account = try legacyAccessor.items(userID: identifier.contains("@") ? identifier : nil).compactMap(\.value.account)
            .first(where: { $0.isNamed(identifier) }) {
            return account
        }
        guard identifier.contains("@") else {
            throw .interactionRequired(reason: "no account '\(DisplayText(identifier))' is in the cache; ADAL names users by their UPN", lastWipe: nil)
        }
        let user = issuer.user(username: identifier, tenant: "common")
        return user.account(environment: environment)
    }
}
