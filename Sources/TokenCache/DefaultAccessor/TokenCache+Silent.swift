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
        // Partial queries, as the SDKs read: the account records, then the items of the account
        // asked for and the app's metadata. A read costs what those items cost, not what the
        // whole group holds (every other user's tokens, and whatever other tools keep there).
        if configuration.sdk == .adal { return try acquireTokenSilentLegacy(account: identifier, scopes: scopes, forceRefresh: forceRefresh) }
        let accounts = CacheSnapshot(items: try items(ofTypes: Array(ItemType.accounts)))
        // An account only ADAL's legacy items know (an ADAL sign-in without MSAL's format) is
        // found through the legacy accessor, as MSAL's account list finds it.
        let legacyAccount = { () throws(TokenCacheError) -> CachedAccount? in
            try self.legacyAccounts(clientID: self.clientID, familyID: self.familyForLookup(in: accounts))
                .first { $0.isNamed(identifier) }
        }
        var found = accounts.account(named: identifier, environment: environment)
        if found == nil { found = try legacyAccount() }
        guard let account = found else {
            throw .interactionRequired(reason: "no account '\(identifier)' is in the cache", lastWipe: try? wipeInfo())
        }
        let snapshot = CacheSnapshot(items: try itemsOf(homeAccountID: account.homeAccountID))
        if try signInState(of: account.homeAccountID, legacy: snapshot) == .signedOut {
            throw .interactionRequired(reason: "Account is signed out, user interaction is required. (\(account.username), client \(clientID))", lastWipe: nil)
        }
        let date = now()
        if !forceRefresh, let cached = validAccessToken(for: account, scopes: scopes, in: snapshot, at: date) {
            return cached
        }
        var refusals: [String] = []
        for candidate in try refreshTokens(for: account, in: snapshot) {
            guard let (entry, isFamily) = try candidate() else { continue }
            if let refusal = issuer.refusal(of: entry.value, asFamilyToken: isFamily, clientID: clientID, familyID: configuration.familyID) {
                refusals.append(refusal)
                continue
            }
            let response = issuer.issue(
                to: issuer.user(for: account), clientID: clientID, familyID: configuration.familyID,
                environment: environment, scopes: scopes, at: date)
            try save(response, over: snapshot)
            return result(of: response, source: isFamily ? .familyRefreshToken : .refreshToken)
        }
        let family = familyForLookup(in: snapshot).map { " or family \($0)" } ?? ""
        let reason = refusals.isEmpty
            ? "no refresh token of client \(clientID)\(family) for \(account.username) (\(account.homeAccountID))"
            : "the refresh tokens for \(account.username) were refused: \(refusals.joined(separator: "; "))"
        throw .interactionRequired(reason: reason, lastWipe: try? wipeInfo())
    }

    /// The cached access token that satisfies the request, as a result; nil without the
    /// account's ID token of this client and realm (`resultWithAccessToken` then refreshes).
    func validAccessToken(for account: CachedAccount, scopes: [String], in snapshot: CacheSnapshot, at date: Date) -> AuthenticationResult? {
        let wanted = Set(scopes.map { $0.lowercased() })
        let accountKey = CacheKey.account(homeAccountID: account.homeAccountID, environment: environment)
        let found = snapshot.credentials.first { entry in
            let token = entry.value
            return token.type == .accessToken
                && entry.item.account == accountKey
                && CacheKey.normalized(token.clientID) == CacheKey.normalized(clientID)
                && CacheKey.normalized(token.realm ?? "") == CacheKey.normalized(account.tenantID)
                && wanted.isSubset(of: token.scopes)
                && (token.expiresOn ?? .distantPast) > date.addingTimeInterval(Self.expirationMargin)
        }
        guard let token = found?.value, let expiresOn = token.expiresOn else { return nil }
        let idTokenLayout = ItemLayout.credential(
            .idToken, homeAccountID: account.homeAccountID, environment: environment,
            clientOrFamilyID: clientID, realm: account.tenantID, target: nil)
        guard let idToken = snapshot.credential(at: idTokenLayout) else { return nil }
        return AuthenticationResult(
            accessToken: TokenSecret(token.secret),
            idToken: TokenSecret(idToken.value.secret),
            scopes: (token.target ?? "").split(whereSeparator: \.isWhitespace).map(String.init),
            expiresOn: expiresOn, account: account, tenantID: token.realm ?? account.tenantID, source: .cache)
    }

    /// A refresh token to try, looked up when its turn comes: the legacy lookups are keychain
    /// calls MSAL makes only when the default accessor found nothing.
    typealias RefreshTokenCandidate = () throws(TokenCacheError) -> (CacheSnapshot.Entry<Credential>, isFamily: Bool)?

    /// The refresh tokens to try, in MSAL's order (`MSIDSilentTokenRequest.m`
    /// `shouldCheckForFRTFirst`): outside single-FRT mode the app's own token first, then the
    /// family token of the app's family, when it has one; in single-FRT mode the family's
    /// FamilyRefreshToken (type 2008) first, then those. Where the default accessor has no own
    /// or family token, its other accessor, the legacy one, is asked for ADAL's (client ID, or
    /// `foci-<fid>`), as `MSIDDefaultTokenCacheAccessor getRefreshTokenWithAccount` does.
    func refreshTokens(for account: CachedAccount, in snapshot: CacheSnapshot) throws(TokenCacheError) -> [RefreshTokenCandidate] {
        let layout = { (type: CredentialType, client: String) in
            ItemLayout.credential(type, homeAccountID: account.homeAccountID, environment: environment,
                                  clientOrFamilyID: client, realm: nil, target: nil)
        }
        let family = familyForLookup(in: snapshot)
        let legacy = { (client: String, isFamily: Bool) throws(TokenCacheError) -> (CacheSnapshot.Entry<Credential>, isFamily: Bool)? in
            guard !account.username.isEmpty,
                  let found = try self.legacyRefreshToken(userID: account.username, clientID: client, realms: self.legacyRealms(for: account))
            else { return nil }
            return (self.credential(from: found, account: account), isFamily: isFamily)
        }
        let own: RefreshTokenCandidate = { () throws(TokenCacheError) in
            if let entry = snapshot.credential(at: layout(.refreshToken, clientID)) { return (entry, isFamily: false) }
            return try legacy(clientID, false)
        }
        let shared: RefreshTokenCandidate = { () throws(TokenCacheError) in
            guard let family else { return nil }
            if let entry = snapshot.credential(at: layout(.refreshToken, family)) { return (entry, isFamily: true) }
            return try legacy(LegacyResource.familyClientID(family), true)
        }
        guard try singleFRTEnabled() else { return [own, shared] }
        let single: RefreshTokenCandidate = {
            family.flatMap { snapshot.credential(at: layout(.familyRefreshToken, $0)) }.map { ($0, isFamily: true) }
        }
        return [single, own, shared]
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
