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
    /// The SDK's queries in its order: the app metadata (`{service appmetadata-<cid>, type
    /// 3001}`, the family), the MSSTS accounts (`{type 1003}`), `useSingleFRT` and every refresh
    /// token (`{type 2002}`; `{type 2008}` first in single-FRT mode), every ID token
    /// (`{type 2003}`, for the claims the SDK attaches), this client's account metadata once per
    /// account record (`filterAndFillIdTokenClaimsForAccounts`), the wipe record when nothing is
    /// listed, and ADAL's items. One account per home account, the home tenant's record first,
    /// as MSAL merges them.
    ///
    /// Then, as the default accessor asks its other accessor, the users of ADAL's legacy refresh
    /// tokens of this client or family (the legacy accessor's `accountsWithAuthority`), those already
    /// listed and those this client signed out left out (`filterSignedOutAccountsFromOtherAccessor`,
    /// one account-metadata read each).
    ///
    /// An ADAL app (``TokenCacheSDK/adal``) lists only the legacy users: ADAL keeps no account
    /// records of its own and reads none of MSAL's.
    public func accounts() throws(TokenCacheError) -> [CachedAccount] {
        if configuration.sdk == .adal {
            return try legacyAccounts(clientID: clientID, familyID: configuration.familyID)
        }
        // MSALAccountsProvider allAccounts: the family from appMetadataItem.
        let family = family(from: try appMetadataItem(anyEnvironment: true)).map(CacheKey.normalized)
        let records = decoded(try items(matching: KeychainQuery(group: accessGroup, type: AuthorityType.msSTS.itemType)))
            .accounts.map(\.value)
        // homeAccountIdsFromRTsWithAuthority: in single-FRT mode the family tokens are their own
        // type (2008), read first.
        let refreshTypes = try singleFRTEnabled() ? [CredentialType.familyRefreshToken, .refreshToken] : [.refreshToken]
        var tokens: [Credential] = []
        for type in refreshTypes {
            tokens += decoded(try items(matching: KeychainQuery(group: accessGroup, type: type.itemType))).credentials.map(\.value)
        }
        // idTokensWithAuthority: read for their claims, which the emulator's accounts do not carry.
        _ = try items(matching: KeychainQuery(group: accessGroup, type: CredentialType.idToken.itemType))
        let client = CacheKey.normalized(clientID)
        var withToken = Set<String>()
        for token in tokens where token.type.isRefreshToken {
            let isOwn = CacheKey.normalized(token.clientID) == client
            let isFamily = family != nil && token.family.map(CacheKey.normalized) == family
            if isOwn || isFamily { withToken.insert(CacheKey.normalized(token.homeAccountID)) }
        }
        var earlierLayout: CacheSnapshot?
        var chosen: [String: CachedAccount] = [:]
        var order: [String] = []
        for account in records {
            let home = CacheKey.normalized(account.homeAccountID)
            switch try signInState(of: account.homeAccountID, earlierLayout: &earlierLayout) {
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
        if order.isEmpty { _ = try? wipeInfo() }
        var listed = order.compactMap { chosen[$0] }
        for account in try legacyAccounts(clientID: clientID, familyID: family) {
            let home = CacheKey.normalized(account.homeAccountID)
            guard chosen[home] == nil, try signInState(of: account.homeAccountID, earlierLayout: &earlierLayout) != .signedOut
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
        let snapshot = decoded(try items(ofTypes: Array(ItemType.accounts)))
        return snapshot.account(named: identifier, environment: environment) != nil
    }
}
