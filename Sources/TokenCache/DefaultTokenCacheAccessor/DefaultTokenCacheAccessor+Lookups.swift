import Foundation
import SharedKeychain

/// The default accessor's lookups, one keychain query each as IdentityCore builds it
/// (`MSIDDefaultCredentialCacheQuery.m`, `MSIDDefaultAccountCacheQuery`,
/// `MSIDAppMetadataCacheQuery`; `MSIDKeychainTokenCache.m` `itemsWithKey`), the results filtered
/// in memory as `MSIDAccountCredentialCache getCredentialsWithQuery` filters them: every lookup
/// here is one the SDK makes with `environmentAliases` (`defaultCacheEnvironmentAliases`), so an
/// item of any alias of the cloud matches. A query the SDK builds with environment aliases has
/// no account attribute; one with a subset target has no service.
extension DefaultTokenCacheAccessor {
    /// `getAccessTokenForAccount`: `{generic accesstoken-<cid>-<realm>, type 2001}`, this
    /// account's tokens in any alias of the cloud.
    func accessTokens(homeAccountID: String, realm: String) throws(TokenCacheError) -> [CacheSnapshot.Entry<Credential>] {
        let layout = ItemLayout.credential(
            .accessToken, homeAccountID: homeAccountID, environment: environment, clientOrFamilyID: clientID, realm: realm, target: nil)
        let found = try credentialCache.credentials(matching: KeychainQuery(group: accessGroup, generic: layout.generic, type: layout.type))
        return found.filter { isOwn($0.value, homeAccountID: homeAccountID, type: .accessToken) && CacheKey.normalized($0.value.realm ?? "") == CacheKey.normalized(realm) }
    }

    /// `getIDTokenForAccount`: `{service idtoken-<cid>-<realm>-, generic idtoken-<cid>-<realm>, type 2003}`.
    func idToken(homeAccountID: String, realm: String) throws(TokenCacheError) -> CacheSnapshot.Entry<Credential>? {
        let layout = ItemLayout.credential(
            .idToken, homeAccountID: homeAccountID, environment: environment, clientOrFamilyID: clientID, realm: realm, target: nil)
        let found = try credentialCache.credentials(matching: KeychainQuery(group: accessGroup, service: layout.service, generic: layout.generic, type: layout.type))
        return found.first { isOwn($0.value, homeAccountID: homeAccountID, type: .idToken) }
    }

    /// `getAccountForIdentifier` with a home account ID and a realm: `{service <realm>, type 1003}`.
    func accountRecord(homeAccountID: String, realm: String) throws(TokenCacheError) -> CachedAccount? {
        let found = try keychainCache.items(matching: KeychainQuery(group: accessGroup, service: CacheKey.normalized(realm), type: AuthorityType.msSTS.itemType))
        let home = CacheKey.normalized(homeAccountID)
        return keychainCache.decoded(found).accounts.map(\.value).first {
            CacheKey.normalized($0.homeAccountID) == home && environmentAliases.contains($0.environment)
        }
    }

    /// `homeAccountIdForLegacyId` (an account query with a username): `{generic <upn>, type 1003}`,
    /// the records of the cloud's aliases.
    func accountRecords(username: String) throws(TokenCacheError) -> [CachedAccount] {
        let query = KeychainQuery(group: accessGroup, generic: Data(CacheKey.normalized(username).utf8), type: AuthorityType.msSTS.itemType)
        return try credentialCache.entries(matching: query).accounts.map(\.value).filter { environmentAliases.contains($0.environment) }
    }

    /// `getAppMetadataEntries` / `MSALAccountsProvider appMetadataItem`:
    /// `{service appmetadata-<cid>, type 3001}`, the first entry of the cloud's aliases (silent
    /// acquisition filters by the authority's aliases) or of any (the account list has no
    /// authority).
    func appMetadataItem(anyEnvironment: Bool) throws(TokenCacheError) -> AppMetadata? {
        let layout = ItemLayout.appMetadata(environment: environment, clientID: clientID, familyID: nil)
        let found = try credentialCache.entries(matching: KeychainQuery(group: accessGroup, service: layout.service, type: layout.type))
        let client = CacheKey.normalized(clientID)
        return found.appMetadata.map(\.value).first {
            CacheKey.normalized($0.clientID) == client && (anyEnvironment || environmentAliases.contains($0.environment))
        }
    }

    /// The family MSAL looks up: the app metadata's (none when it says `""`), or
    /// ``TokenCache/defaultFamilyID`` when there is no app metadata at all (`MSIDDefaultSilentTokenRequest`
    /// `familyRefreshTokenWithError`, `MSALAccountsProvider allAccounts`).
    func family(from metadata: AppMetadata?) -> String? {
        guard let metadata else { return TokenCache.defaultFamilyID }
        return metadata.family
    }

    /// `MSIDDefaultTokenCacheAccessor getRefreshTokenWithAccount:familyId:` (no BART):
    /// `checkFRTEnabled`; in single-FRT mode the FamilyRefreshToken (`{type 2008}`) first; the
    /// refresh token (`getRefreshableTokenWithAccount`); then the other accessor, the legacy
    /// one (`foci-<fid>` for a family), which reads the wipe record after a miss. `familyID`
    /// nil is the app's own token.
    func refreshToken(for account: CachedAccount, familyID: String?) throws(TokenCacheError) -> CacheSnapshot.Entry<Credential>? {
        if try credentialCache.checkFRTEnabled(), let found = try refreshableToken(.familyRefreshToken, for: account, familyID: familyID) { return found }
        if let found = try refreshableToken(.refreshToken, for: account, familyID: familyID) { return found }
        guard !account.username.isEmpty else { return nil }
        let client = familyID.map(LegacyResource.familyClientID) ?? clientID
        if let found = try otherAccessor.refreshToken(userID: account.username, clientID: client, realms: otherAccessor.lookupRealms(for: account)) {
            return otherAccessor.credential(from: found, account: account)
        }
        _ = try? keychainCache.wipeInfo()
        return nil
    }

    /// `getRefreshableTokenWithAccount:familyId:credentialType:`: the query by home account ID,
    /// the wipe record read after a miss (`getTokenWithEnvironment`); then, with a username,
    /// the home account ID its account record names and the query again
    /// (`getRefreshableTokenByDisplayableId`). A refresh token's query is
    /// `{service refreshtoken-<cid|fid>--, generic refreshtoken-<cid|fid>-, type 2002}`; a
    /// FamilyRefreshToken's is `{type 2008}`, filtered by `family_id` (or `client_id`).
    private func refreshableToken(_ type: CredentialType, for account: CachedAccount, familyID: String?) throws(TokenCacheError)
        -> CacheSnapshot.Entry<Credential>?
    {
        let query: KeychainQuery
        if type == .familyRefreshToken {
            query = KeychainQuery(group: accessGroup, type: type.itemType)
        } else {
            let layout = ItemLayout.credential(
                type, homeAccountID: account.homeAccountID, environment: environment,
                clientOrFamilyID: familyID ?? clientID, realm: nil, target: nil)
            query = KeychainQuery(group: accessGroup, service: layout.service, generic: layout.generic, type: layout.type)
        }
        let lookup = { (homeAccountID: String) throws(TokenCacheError) -> CacheSnapshot.Entry<Credential>? in
            let home = CacheKey.normalized(homeAccountID)
            return try credentialCache.credentials(matching: query).first { entry in
                let token = entry.value
                guard token.type == type, CacheKey.normalized(token.homeAccountID) == home,
                      self.environmentAliases.contains(token.environment)
                else { return false }
                if let familyID { return token.family.map(CacheKey.normalized) == CacheKey.normalized(familyID) }
                return CacheKey.normalized(token.clientID) == CacheKey.normalized(self.clientID)
            }
        }
        if let found = try lookup(account.homeAccountID) { return found }
        _ = try? keychainCache.wipeInfo()
        guard !account.username.isEmpty,
              let home = try accountRecords(username: account.username).first?.homeAccountID, !home.trimmingWhitespace.isEmpty
        else { return nil }
        if let found = try lookup(home) { return found }
        _ = try? keychainCache.wipeInfo()
        return nil
    }

    /// Whether `token` is this client's of `type` for the account in an alias of the cloud.
    private func isOwn(_ token: Credential, homeAccountID: String, type: CredentialType) -> Bool {
        token.type == type && CacheKey.normalized(token.homeAccountID) == CacheKey.normalized(homeAccountID)
            && environmentAliases.contains(token.environment) && CacheKey.normalized(token.clientID) == CacheKey.normalized(clientID)
    }

    /// The account an identifier names, as the MSALAccount an app passes in: found by username
    /// (`{generic <upn>, type 1003}`, as `homeAccountIdForLegacyId` queries) or, for a home
    /// account ID, by its home tenant (`{service <utid>, type 1003}`, as
    /// `getAccountForIdentifier` queries); the home tenant's record first. An account only
    /// ADAL's legacy items know is found through the legacy accessor, as MSAL's account list
    /// finds it.
    func account(named identifier: String) throws(TokenCacheError) -> CachedAccount {
        let records: [CachedAccount]
        let tenant = identifier.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
        if !identifier.contains("@"), let tenant, !tenant.isEmpty {
            records = try accountRecord(homeAccountID: identifier, realm: tenant).map { [$0] } ?? []
        } else {
            records = try accountRecords(username: identifier)
        }
        let named = records.filter { $0.isNamed(identifier) }
        if let found = named.first(where: \.isHomeTenantRecord) ?? named.first { return found }
        if let legacy = try otherAccessor.accounts(clientID: clientID, familyID: TokenCache.defaultFamilyID).first(where: { $0.isNamed(identifier) }) {
            return legacy
        }
        throw .interactionRequired(reason: "no account '\(DisplayText(identifier))' is in the cache", lastWipe: try? keychainCache.wipeInfo())
    }

    /// `MSIDSilentTokenRequest executeRequestImpl` before any refresh: the access token
    /// (`accessTokenWithError`) that covers every requested scope (case-insensitively). Valid
    /// (not expiring within ``TokenCache/expirationMargin``), it is answered with a refresh token looked up
    /// family first (`fetchCachedTokenAndCheckForFRTFirst:YES`), the ID token and the account
    /// record (`resultWithAccessToken`); without either, nil ("Try to recover"). Expired past
    /// its extended lifetime, it is deleted (`removeAccessToken`). Valid but past its
    /// `refresh_on` (`refreshNeeded`), it is kept and nil returned: a proactive refresh follows.
    /// `realm` is the tenant the request asks in (``TokenCache/issuerTenant(for:)``).
    func cachedResult(for account: CachedAccount, realm: String, scopes: [String], at date: Date) throws(TokenCacheError) -> AuthenticationResult? {
        let wanted = Set(scopes.map { $0.lowercased() })
        guard let found = try accessTokens(homeAccountID: account.homeAccountID, realm: realm).first(where: { wanted.isSubset(of: $0.value.scopes) })
        else { return nil }
        let token = found.value
        guard let expiresOn = token.expiresOn, expiresOn > date.addingTimeInterval(TokenCache.expirationMargin) else {
            if (token.extendedExpiresOn ?? .distantPast) <= date { _ = try keychainCache.deleteItem(found.item) }
            return nil
        }
        if token.refreshNeeded(at: date) { return nil }
        _ = try refreshTokenToRedeem(for: account, familyFirst: true)
        guard let idToken = try idToken(homeAccountID: account.homeAccountID, realm: realm),
              let record = try accountRecord(homeAccountID: account.homeAccountID, realm: realm)
        else { return nil }
        return AuthenticationResult(
            accessToken: TokenSecret(token.secret), idToken: TokenSecret(idToken.value.secret),
            scopes: (token.target ?? "").split(whereSeparator: \.isWhitespace).map(String.init),
            expiresOn: expiresOn, account: record, tenantID: token.realm ?? record.tenantID, source: .cache)
    }

    /// `fetchCachedTokenAndCheckForFRTFirst`: the family's refresh token then the app's, or the
    /// app's then the family's; the first found, and whether it is the family's.
    func refreshTokenToRedeem(for account: CachedAccount, familyFirst: Bool) throws(TokenCacheError)
        -> (CacheSnapshot.Entry<Credential>, isFamily: Bool)?
    {
        for family in familyFirst ? [true, false] : [false, true] {
            let found = family ? try familyRefreshToken(for: account) : try refreshToken(for: account, familyID: nil)
            if let found { return (found, isFamily: family) }
        }
        return nil
    }

    /// `familyRefreshTokenWithError`: the app metadata (`appMetadataWithError`) names the
    /// family, ``TokenCache/defaultFamilyID`` without one; none when it says `""`.
    func familyRefreshToken(for account: CachedAccount) throws(TokenCacheError) -> CacheSnapshot.Entry<Credential>? {
        guard let family = family(from: try appMetadataItem(anyEnvironment: false)) else { return nil }
        return try refreshToken(for: account, familyID: family)
    }
}
