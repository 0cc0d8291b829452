import Foundation
import SharedKeychain

extension TokenCache {
    /// MSAL's `allAccounts` for this app (`MSALAccountsProvider allAccounts`, IdentityCore
    /// `MSIDDefaultTokenCacheAccessor accountsWithAuthority` with no authority): the account
    /// records of the group in ANY environment, kept when this client's account metadata says
    /// `signed_in` (even with no refresh token), dropped when it says `signed_out`, and
    /// otherwise kept when a refresh token of that home account has this app's `client_id` or
    /// the app's family as `family_id` (the family from the app metadata; ``defaultFamilyID``
    /// while it has none; none when the server said "no family").
    ///
    /// Partial queries (one per item type that plays a part), whatever the size of the group;
    /// one account per home account, the home tenant's record first, as MSAL merges them.
    ///
    /// Then, as the default accessor asks its other accessor, the users of ADAL's legacy refresh
    /// tokens of this client or family (the legacy accessor's `accountsWithAuthority`), those already
    /// listed and those this client signed out left out (`filterSignedOutAccountsFromOtherAccessor`).
    ///
    /// An ADAL app (``TokenCacheSDK/adal``) lists only the legacy users: ADAL keeps no account
    /// records of its own and reads none of MSAL's.
    public func accounts() throws(TokenCacheError) -> [CachedAccount] {
        if configuration.sdk == .adal {
            return try legacyAccounts(clientID: clientID, familyID: configuration.familyID)
        }
        // In single-FRT mode the family tokens are their own type (2008), read too.
        let refreshTypes = try singleFRTEnabled() ? [CredentialType.familyRefreshToken, .refreshToken] : [.refreshToken]
        let types = Array(ItemType.accounts) + refreshTypes.map(\.itemType) + [ItemType.appMetadata, ItemType.legacySignInState]
        let snapshot = CacheSnapshot(items: try items(ofTypes: types))
        let metadata = try readAccountMetadata()?.value
        let family = familyForLookup(in: snapshot).map(CacheKey.normalized)
        let client = CacheKey.normalized(clientID)
        var withToken = Set<String>()
        for entry in snapshot.credentials where entry.value.type.isRefreshToken {
            let token = entry.value
            let isOwn = CacheKey.normalized(token.clientID) == client
            let isFamily = family != nil && token.family.map(CacheKey.normalized) == family
            if isOwn || isFamily { withToken.insert(CacheKey.normalized(token.homeAccountID)) }
        }
        var chosen: [String: CachedAccount] = [:]
        var order: [String] = []
        for account in snapshot.accounts.map(\.value) {
            let home = CacheKey.normalized(account.homeAccountID)
            switch snapshot.signInState(clientID: clientID, homeAccountID: account.homeAccountID, metadata: metadata) {
            case .signedOut?: continue
            case .signedIn?: break
            default: guard withToken.contains(home) else { continue }
            }
            if let kept = chosen[home] {
                if !kept.isHomeTenantRecord, account.isHomeTenantRecord { chosen[home] = account }
            } else {
                chosen[home] = account
                order.append(home)
            }
        }
        var listed = order.compactMap { chosen[$0] }
        for account in try legacyAccounts(clientID: clientID, familyID: family) {
            let home = CacheKey.normalized(account.homeAccountID)
            guard chosen[home] == nil,
                  snapshot.signInState(clientID: clientID, homeAccountID: account.homeAccountID, metadata: metadata) != .signedOut
            else { continue }
            chosen[home] = account
            listed.append(account)
        }
        return listed
    }

    /// Whether the group holds an account record of `identifier` (a username or a home account
    /// ID) in this environment, whichever app wrote it: a user the suite has signed in, with
    /// tokens or not. The CLI signs in interactively only users it knows, unless told to.
    public func knows(account identifier: String) throws(TokenCacheError) -> Bool {
        let snapshot = CacheSnapshot(items: try items(ofTypes: Array(ItemType.accounts)))
        return snapshot.account(named: identifier, environment: environment) != nil
    }
}
