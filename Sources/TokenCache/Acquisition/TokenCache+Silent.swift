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
        let account = try defaultAccessor.account(named: identifier)
        let realm = try issuerTenant(for: account)
        // accountStateForParameters: the client's account metadata, before any token.
        var earlierLayout: CacheSnapshot?
        if try accountMetadata.signInState(of: account.homeAccountID, earlierLayout: &earlierLayout) == .signedOut {
            throw .interactionRequired(reason: "Account is signed out, user interaction is required. (\(DisplayText(account.username)), client \(clientID))", lastWipe: nil)
        }
        let date = now()
        if !forceRefresh, let cached = try defaultAccessor.cachedResult(for: account, realm: realm, scopes: scopes, at: date) { return cached }
        // shouldCheckForFRTFirst: the family's first only in single-FRT mode.
        guard let (token, isFamily) = try defaultAccessor.refreshTokenToRedeem(for: account, familyFirst: try credentialCache.checkFRTEnabled()) else {
            throw .interactionRequired(
                reason: "no refresh token of client \(clientID) or its family for \(DisplayText(account.username)) (\(DisplayText(account.homeAccountID)))",
                lastWipe: try? keychainCache.wipeInfo())
        }
        var tried = [(token, isFamily)]
        // handleErrorResponseForAppRefreshToken: after the app's token is refused, the family's
        // (looked up again), when its secret differs.
        if !isFamily, issuer.refusal(of: token.value, asFamilyToken: false, clientID: clientID, familyID: configuration.familyID) != nil,
           let family = try defaultAccessor.familyRefreshToken(for: account), family.value.secret != token.value.secret {
            tried.append((family, true))
        }
        var refusals: [String] = []
        for (entry, isFamily) in tried {
            if let refusal = issuer.refusal(of: entry.value, asFamilyToken: isFamily, clientID: clientID, familyID: configuration.familyID) {
                refusals.append(refusal)
                continue
            }
            var response = issuer.issue(
                to: issuer.user(for: account), clientID: clientID, familyID: configuration.familyID,
                environment: environment, scopes: scopes, at: date)
            response.requestAuthority = try? configuration.authority
            try defaultAccessor.saveTokens(response)
            return result(of: response, source: isFamily ? .familyRefreshToken : .refreshToken)
        }
        throw .interactionRequired(
            reason: "the refresh tokens for \(DisplayText(account.username)) were refused: \(refusals.joined(separator: "; "))", lastWipe: try? keychainCache.wipeInfo())
    }
}

extension TokenCache {
    /// The tenant a silent request for `account` asks in (MSAL `MSALAADOauth2Provider`
    /// `issuerAuthorityWithAccount`): the account metadata's authority map entry for the
    /// configured authority (`getAuthorityURL`, one read of the client's item) when there is one;
    /// else, for `common`, `organizations` and `consumers`, the account's home tenant; else the
    /// configured tenant.
    func issuerTenant(for account: CachedAccount) throws(TokenCacheError) -> String {
        let requestAuthority: Authority
        do { requestAuthority = try configuration.authority } catch { throw .invalidArgument(error.message) }
        if let cached = try accountMetadata.authorityURL(forRequest: requestAuthority.url, homeAccountID: account.homeAccountID),
           let tenant = (try? Authority(parsing: cached, validated: false))?.tenant {
            return tenant
        }
        guard requestAuthority.tenantType == .identifier else { return account.homeTenantID ?? account.tenantID }
        return requestAuthority.tenant
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
