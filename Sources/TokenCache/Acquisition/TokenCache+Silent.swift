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
    /// (case-insensitively), does not expire within ``expirationMargin`` and is not past its
    /// `refresh_on` (`MSIDAccessToken.m` `refreshNeeded`: past it, the token is refreshed
    /// proactively); then the app's own refresh token, then the family's (the family from the
    /// app metadata; ``defaultFamilyID`` while the cache has none; none when the server said
    /// "no family"). A family token the server answers with `client_mismatch` sets the app
    /// metadata's `family_id` to `""` (`MSIDDefaultSilentTokenRequest.m`
    /// `updateFamilyIdCacheWithServerError`), so the next acquisition skips family tokens.
    ///
    /// - Parameters:
    ///   - identifier: a home account ID (`<oid>.<tid>`) or a username.
    ///   - scopes: the scopes the token must cover.
    ///   - forceRefresh: skip cached access tokens and redeem a refresh token, as MSAL's
    ///     `forceRefresh` does.
    ///   - tenant: the tenant of the request's authority (a name or GUID); nil, `common` or
    ///     `organizations` for the account's home tenant. A guest tenant's access token is
    ///     looked up by its realm, and the account's one refresh token (keyed by the home
    ///     account ID, not the realm) is redeemed for it (`MSIDDefaultSilentTokenRequest`).
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is usable;
    ///   it carries the group's wipe record, if any, to say who deleted the tokens.
    public func acquireTokenSilent(
        account identifier: String, scopes: [String], forceRefresh: Bool = false, tenant: String? = nil
    ) throws(TokenCacheError) -> AuthenticationResult {
        let scopes = try Self.normalized(scopes)
        if configuration.sdk == .adal { return try acquireTokenSilentLegacy(account: identifier, scopes: scopes, forceRefresh: forceRefresh) }
        let named = try defaultAccessor.account(named: identifier)
        // The realm the request asks in: the tenant given, else the configured authority's
        // (through the account metadata's authority map); the account's profile there.
        let requestTenant = if let tenant { tenant } else { try issuerTenant(for: named) }
        let account = issuer.profile(of: named, inTenant: requestTenant)
        let realm = account.tenantID
        // accountStateForParameters: the client's account metadata, before any token.
        if try accountMetadata.signInState(of: account.homeAccountID) == .signedOut {
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
        if !isFamily, issuer.refusal(of: token.value, asFamilyToken: false, clientID: clientID, familyID: serverFamilyID) != nil,
           let family = try defaultAccessor.familyRefreshToken(for: account), family.value.secret != token.value.secret {
            tried.append((family, true))
        }
        var refusals: [String] = []
        for (entry, isFamily) in tried {
            if let refusal = issuer.refusal(of: entry.value, asFamilyToken: isFamily, clientID: clientID, familyID: serverFamilyID) {
                refusals.append(refusal.description)
                if isFamily, refusal.subError == .clientMismatch {
                    // handleErrorResponseForFamilyRefreshToken: a failed update is only logged.
                    try? defaultAccessor.updateAppMetadata(familyID: "")
                }
                continue
            }
            var response = issuer.issue(
                to: issuer.user(for: account), clientID: clientID, familyID: serverFamilyID,
                environment: environment, scopes: scopes, at: date)
            // The authority the request named: the tenant given, else the configured one.
            response.requestAuthority = try? tenant.map { try Authority(host: configuration.authorityHost, tenant: $0) } ?? configuration.authority
            let failures = defaultAccessor.saveTokens(response)
            return result(of: response, source: isFamily ? .familyRefreshToken : .refreshToken, cacheSaveFailures: failures)
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
    /// ``acquireTokenSilent(account:scopes:forceRefresh:tenant:)``); when that needs interaction and `interactive`
    /// allows it, an emulated interactive sign-in of the same user, which needs the identifier
    /// to be a username. The result's `source` says which happened. `forceRefresh` skips cached
    /// access tokens, as MSAL's `forceRefresh` does.
    ///
    /// - Parameters:
    ///   - identifier: a home account ID or a username; a sign-in needs a username.
    ///   - scopes: the scopes the token must cover.
    ///   - interactive: whether an interactive sign-in may follow a silent failure.
    ///   - forceRefresh: skip cached access tokens.
    ///   - tenant: as ``acquireTokenSilent(account:scopes:forceRefresh:tenant:)``'s; the
    ///     sign-in goes to that tenant too.
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is
    ///   usable and no sign-in is allowed (or possible with a home account ID).
    public func acquireToken(
        account identifier: String, scopes: [String], interactive: Bool, forceRefresh: Bool = false, tenant: String? = nil
    ) throws(TokenCacheError) -> AuthenticationResult {
        do {
            return try acquireTokenSilent(account: identifier, scopes: scopes, forceRefresh: forceRefresh, tenant: tenant)
        } catch .interactionRequired where interactive && identifier.contains("@") {
            return try signIn(username: identifier, tenant: tenant ?? "common", scopes: scopes)
        }
    }
}
