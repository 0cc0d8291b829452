import Foundation
import SharedKeychain

extension TokenCache {
    /// MSAL's `allAccounts` for this app: the account records of the group, kept when a refresh
    /// token exists for that home account whose `client_id` is this app's, or whose `family_id`
    /// is the app's family (from its app metadata; ``defaultFamilyID`` while it has none).
    /// This client's `signed_out` state hides an account even then.
    ///
    /// Seven partial queries (one per item type that plays a part), whatever the size of the
    /// group; one account per home account, the home tenant's record first.
    public func accounts() throws(TokenCacheError) -> [CachedAccount] {
        // One partial query per item type that plays a part (not access or ID tokens).
        let types = Array(ItemType.accounts) + [CredentialType.refreshToken.itemType, ItemType.appMetadata, ItemType.signInState]
        let snapshot = CacheSnapshot(items: try items(ofTypes: types))
        let family = familyForLookup(in: snapshot)
        let client = CacheKey.normalized(clientID)
        var withToken = Set<String>()
        for entry in snapshot.credentials where entry.value.type == .refreshToken && CacheKey.normalized(entry.value.environment) == environment {
            let token = entry.value
            let isOwn = CacheKey.normalized(token.clientID) == client
            let isFamily = family != nil && token.family.map(CacheKey.normalized) == family.map(CacheKey.normalized)
            if isOwn || isFamily { withToken.insert(CacheKey.normalized(token.homeAccountID)) }
        }
        var signedOut = Set<String>()
        for entry in snapshot.signInStates
        where entry.value.state == .signedOut && CacheKey.normalized(entry.value.clientID) == client
            && CacheKey.normalized(entry.value.environment) == environment {
            signedOut.insert(CacheKey.normalized(entry.value.homeAccountID))
        }
        var chosen: [String: CachedAccount] = [:]
        var order: [String] = []
        for account in snapshot.accounts.map(\.value) where CacheKey.normalized(account.environment) == environment {
            let home = CacheKey.normalized(account.homeAccountID)
            guard withToken.contains(home), !signedOut.contains(home) else { continue }
            if let kept = chosen[home] {
                if !kept.isHomeTenantRecord, account.isHomeTenantRecord { chosen[home] = account }
            } else {
                chosen[home] = account
                order.append(home)
            }
        }
        return order.compactMap { chosen[$0] }
    }

    /// Whether the group holds an account record of `identifier` (a username or a home account
    /// ID) in this environment, whichever app wrote it: a user the suite has signed in, with
    /// tokens or not. The CLI signs in interactively only users it knows, unless told to.
    public func knows(account identifier: String) throws(TokenCacheError) -> Bool {
        let snapshot = CacheSnapshot(items: try items(ofTypes: Array(ItemType.accounts)))
        return snapshot.account(named: identifier, environment: environment) != nil
    }
}
