import Foundation
import SharedKeychain

extension TokenCache {
    /// MSAL's `acquireTokenSilent`: a valid access token from the cache, else one redeemed from
    /// the app's refresh token or the family's, which rotates the refresh token.
    ///
    /// In MSAL's order (`MSALPublicClientApplication.m` `acquireTokenSilentWithParameters`,
    /// IdentityCore `MSIDSilentTokenRequest.m`, `MSIDDefaultSilentTokenRequest.m`): an account
    /// this client signed out needs interaction before the cache is looked at; an access token
    /// counts only with the account's ID token and account item beside it, when it was issued
    /// to this client for the account's tenant, covers every requested scope
    /// (case-insensitively) and does not expire within ``expirationMargin``; then the app's own
    /// refresh token, then the family's (the family from the app metadata; ``defaultFamilyID``
    /// while the cache has none; none when the server said "no family").
    ///
    /// - Parameters:
    ///   - identifier: a home account ID (`<oid>.<tid>`) or a username.
    ///   - scopes: the scopes the token must cover.
    ///   - forceRefresh: skip cached access tokens and redeem a refresh token, as MSAL's
    ///     `forceRefresh` does.
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is usable;
    ///   it carries the group's wipe record, if any, to say who deleted the tokens.
    public func acquireTokenSilent(account identifier: String, scopes: [String], forceRefresh: Bool = false) throws(TokenCacheError)
        -> AuthenticationResult
    {
        let scopes = try Self.normalized(scopes)
        if configuration.sdk == .adal { return try acquireTokenSilentLegacy(account: identifier, scopes: scopes, forceRefresh: forceRefresh) }
        let account = try silentAccount(named: identifier)
        // accountStateForParameters: the client's account metadata, before any token.
        var earlierLayout: CacheSnapshot?
        if try signInState(of: account.homeAccountID, earlierLayout: &earlierLayout) == .signedOut {
            throw .interactionRequired(reason: "Account is signed out, user interaction is required. (\(DisplayText(account.username)), client \(clientID))", lastWipe: nil)
        }
        let date = now()
        if !forceRefresh, let cached = try cachedResult(for: account, scopes: scopes, at: date) { return cached }
        // shouldCheckForFRTFirst: the family's first only in single-FRT mode.
        guard let (token, isFamily) = try refreshTokenToRedeem(for: account, familyFirst: try singleFRTEnabled()) else {
            throw .interactionRequired(
                reason: "no refresh token of client \(clientID) or its family for \(DisplayText(account.username)) (\(DisplayText(account.homeAccountID)))",
                lastWipe: try? wipeInfo())
        }
        var tried = [(token, isFamily)]
        // handleErrorResponseForAppRefreshToken: after the app's token is refused, the family's
        // (looked up again), when its secret differs.
        if !isFamily, issuer.refusal(of: token.value, asFamilyToken: false, clientID: clientID, familyID: configuration.familyID) != nil,
           let family = try familyRefreshToken(for: account), family.value.secret != token.value.secret {
            tried.append((family, true))
        }
        var refusals: [String] = []
        for (entry, isFamily) in tried {
            if let refusal = issuer.refusal(of: entry.value, asFamilyToken: isFamily, clientID: clientID, familyID: configuration.familyID) {
                refusals.append(refusal)
                continue
            }
            let response = issuer.issue(
                to: issuer.user(for: account), clientID: clientID, familyID: configuration.familyID,
                environment: environment, scopes: scopes, at: date)
            try save(response)
            return result(of: response, source: isFamily ? .familyRefreshToken : .refreshToken)
        }
        throw .interactionRequired(
            reason: "the refresh tokens for \(DisplayText(account.username)) were refused: \(refusals.joined(separator: "; "))", lastWipe: try? wipeInfo())
    }

    /// The account an identifier names, as the MSALAccount an app passes in: found by username
    /// (`{generic <upn>, type 1003}`, as `homeAccountIdForLegacyId` queries) or, for a home
    /// account ID, by its home tenant (`{service <utid>, type 1003}`, as
    /// `getAccountForIdentifier` queries); the home tenant's record first. An account only
    /// ADAL's legacy items know is found through the legacy accessor, as MSAL's account list
    /// finds it.
    func silentAccount(named identifier: String) throws(TokenCacheError) -> CachedAccount {
        let records: [CachedAccount]
        let tenant = identifier.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init)
        if !identifier.contains("@"), let tenant, !tenant.isEmpty {
            records = try accountRecord(homeAccountID: identifier, realm: tenant).map { [$0] } ?? []
        } else {
            records = try accountRecords(username: identifier)
        }
        let named = records.filter { $0.isNamed(identifier) }
        if let found = named.first(where: \.isHomeTenantRecord) ?? named.first { return found }
        if let legacy = try legacyAccounts(clientID: clientID, familyID: Self.defaultFamilyID).first(where: { $0.isNamed(identifier) }) {
            return legacy
        }
        throw .interactionRequired(reason: "no account '\(DisplayText(identifier))' is in the cache", lastWipe: try? wipeInfo())
    }

    /// `MSIDSilentTokenRequest executeRequestImpl` before any refresh: the access token
    /// (`accessTokenWithError`) that covers every requested scope (case-insensitively). Valid
    /// (not expiring within ``expirationMargin``), it is answered with a refresh token looked up
    /// family first (`fetchCachedTokenAndCheckForFRTFirst:YES`), the ID token and the account
    /// record (`resultWithAccessToken`); without either, nil ("Try to recover"). Expired past
    /// its extended lifetime, it is deleted (`removeAccessToken`).
    func cachedResult(for account: CachedAccount, scopes: [String], at date: Date) throws(TokenCacheError) -> AuthenticationResult? {
        let wanted = Set(scopes.map { $0.lowercased() })
        let realm = account.tenantID
        guard let found = try accessTokens(homeAccountID: account.homeAccountID, realm: realm).first(where: { wanted.isSubset(of: $0.value.scopes) })
        else { return nil }
        let token = found.value
        guard let expiresOn = token.expiresOn, expiresOn > date.addingTimeInterval(Self.expirationMargin) else {
            if (token.extendedExpiresOn ?? .distantPast) <= date { _ = try deleteItem(found.item) }
            return nil
        }
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
    /// family, ``defaultFamilyID`` without one; none when it says `""`.
    func familyRefreshToken(for account: CachedAccount) throws(TokenCacheError) -> CacheSnapshot.Entry<Credential>? {
        guard let family = family(from: try appMetadataItem(anyEnvironment: false)) else { return nil }
        return try refreshToken(for: account, familyID: family)
    }
}

extension TokenCache {
    /// MSAL's `acquireToken` as an app calls it: silently when it can (see
    /// ``acquireTokenSilent(account:scopes:forceRefresh:)``); when that needs interaction and `interactive`
    /// allows it, an emulated interactive sign-in of the same user, which needs the identifier
    /// to be a username. The result's `source` says which happened.
    ///
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is
    ///   usable and no sign-in is allowed (or possible with a home account ID).
    public func acquireToken(account identifier: String, scopes: [String], interactive: Bool) throws(TokenCacheError)
        -> AuthenticationResult
    {
        do {
            return try acquireTokenSilent(account: identifier, scopes: scopes)
        } catch .interactionRequired where interactive && identifier.contains("@") {
            return try signIn(username: identifier, scopes: scopes)
        }
    }
}
