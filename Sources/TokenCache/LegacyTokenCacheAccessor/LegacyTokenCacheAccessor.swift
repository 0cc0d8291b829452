import Foundation
import SharedKeychain

/// A legacy item as read: the keychain item and its archive decoded.
struct LegacyEntry: Sendable {
    let item: KeychainItem
    let value: LegacyTokenCacheItem
}

/// ADAL's legacy items (`MSOpenTech.ADAL.1`, keyed archives keyed by user, authority, client
/// and resource), read and written as IdentityCore's
/// `cache/accessor/MSIDLegacyTokenCacheAccessor.m` does. MSAL's default accessor reads them as
/// its other accessor; an ADAL app writes them first, and MSAL's SSO state beside them.
struct LegacyTokenCacheAccessor: Sendable {
    /// The keychain calls under it.
    let keychainCache: KeychainTokenCache
    /// The app's client ID.
    let clientID: String
    /// The cache's environment (the authority host).
    let environment: String

    var accessGroup: String { keychainCache.accessGroup }

    /// `getTokenByLegacyUserId:` for a refresh token: one exact
    /// lookup `{account b64(UPN), service, generic MSOpenTech.ADAL.1}` per authority alias, in
    /// order, the first found wins. `clientID` is the app's, or `foci-<fid>` for the family's
    /// copy (`getLegacyRefreshableTokenForAccountImpl`).
    func refreshToken(userID: String, clientID: String, realms: [String]) throws(TokenCacheError) -> LegacyEntry? {
        for realm in realms {
            let key = LegacyTokenCacheKey(environment: environment, realm: realm, clientID: clientID, resource: nil, userID: userID)
            if let found = try token(at: key), found.value.refreshToken != nil { return found }
        }
        return nil
    }

    /// The legacy item at `key` (`tokenWithKey`), if it is there and decodes.
    func token(at key: LegacyTokenCacheKey) throws(TokenCacheError) -> LegacyEntry? {
        let query = KeychainQuery(group: accessGroup, account: key.account, service: key.service, generic: LegacyTokenCacheKey.generic)
        return try keychainCache.items(matching: query).lazy.compactMap(decode).first
    }

    /// Every legacy item of `userID`, or of the whole group when nil: one query
    /// `{[account b64(UPN)], generic MSOpenTech.ADAL.1}` (`MSIDLegacyTokenCacheQuery`); items
    /// that do not decode are skipped, as the SDK skips them.
    func items(userID: String?) throws(TokenCacheError) -> [LegacyEntry] {
        let query = KeychainQuery(
            group: accessGroup, account: userID.map(LegacyTokenCacheKey.account(userID:)), generic: LegacyTokenCacheKey.generic)
        return try keychainCache.items(matching: query).compactMap(decode)
    }

    /// `item` decoded, or nil when it is no legacy item (it has a type) or its archive cannot
    /// be read: then it is skipped, as the SDK skips it, and reported.
    func decode(_ item: KeychainItem) -> LegacyEntry? {
        guard item.type == nil else { return nil }
        do { return LegacyEntry(item: item, value: try LegacyTokenCacheItem(archive: item.data)) } catch {
            keychainCache.reportSkipped(item, reason: error.reason)
            return nil
        }
    }

    /// The legacy accessor's `accountsWithAuthority` with no authority: the users of the legacy
    /// refresh tokens whose client ID is `clientID` or whose family is `familyID`, built from
    /// their ID tokens; one per home account.
    func accounts(clientID: String, familyID: String?) throws(TokenCacheError) -> [CachedAccount] {
        let client = CacheKey.normalized(clientID)
        let family = familyID.map(CacheKey.normalized)
        var seen = Set<String>()
        var accounts: [CachedAccount] = []
        for entry in try items(userID: nil) where entry.value.kind == .refreshToken {
            let token = entry.value
            let matches = CacheKey.normalized(token.clientID) == client || (family != nil && token.familyID.map(CacheKey.normalized) == family)
            guard matches, let account = token.account, seen.insert(CacheKey.normalized(account.homeAccountID)).inserted else { continue }
            accounts.append(account)
        }
        return accounts
    }

    /// The authorities a legacy refresh token is looked up under for `account`
    /// (`MSIDAADAuthority legacyRefreshTokenLookupAliases` of its tenanted authority): the
    /// account's tenant first, then `common`.
    func lookupRealms(for account: CachedAccount) -> [String] {
        let tenant = CacheKey.normalized(account.tenantID)
        return tenant.isEmpty || tenant == "common" ? ["common"] : [tenant, "common"]
    }

    /// A legacy refresh token as the credential MSAL's silent flow redeems.
    func credential(from entry: LegacyEntry, account: CachedAccount) -> CacheSnapshot.Entry<Credential> {
        let token = entry.value
        let credential = Credential(
            type: .refreshToken, secret: token.refreshToken ?? "", homeAccountID: token.homeAccountID ?? account.homeAccountID,
            environment: token.environment, clientID: token.clientID, cachedAt: token.cachedAt, familyID: token.familyID)
        return CacheSnapshot.Entry(item: entry.item, value: credential, object: [:])
    }
}
