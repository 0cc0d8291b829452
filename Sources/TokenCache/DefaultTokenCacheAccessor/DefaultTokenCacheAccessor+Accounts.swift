import Foundation
import SharedKeychain

extension DefaultTokenCacheAccessor {
    /// ``TokenCache/accounts()``; with `signedInOnly` false, ``TokenCache/accountsIncludingSignedOut()``
    /// (IdentityCore `accountsWithAuthority:...signedInAccountsOnly:NO`: every account record,
    /// no refresh-token or sign-in-state filter, so no refresh-token read).
    func accounts(signedInOnly: Bool = true) throws(TokenCacheError) -> [CachedAccount] {
        if sdk == .adal {
            return try otherAccessor.accounts(clientID: clientID, familyID: familyID)
        }
        // MSALAccountsProvider allAccounts: the family from appMetadataItem.
        let family = family(from: try appMetadataItem(anyEnvironment: true)).map(CacheKey.normalized)
        let records = try credentialCache.entries(matching: KeychainQuery(group: accessGroup, type: AuthorityType.msSTS.itemType))
            .accounts.map(\.value)
        // homeAccountIdsFromRTsWithAuthority: in single-FRT mode the family tokens are their own
        // type (2008), read first.
        let refreshTypes: [CredentialType] = if !signedInOnly {
            []
        } else if try credentialCache.checkFRTEnabled() {
            [.familyRefreshToken, .refreshToken]
        } else {
            [.refreshToken]
        }
        var tokens: [Credential] = []
        for type in refreshTypes {
            tokens += try credentialCache.entries(matching: KeychainQuery(group: accessGroup, type: type.itemType)).credentials.map(\.value)
        }
        // idTokensWithAuthority: read for their claims, which the emulator's accounts do not carry.
        _ = try keychainCache.items(matching: KeychainQuery(group: accessGroup, type: CredentialType.idToken.itemType))
        let client = CacheKey.normalized(clientID)
        var withToken = Set<String>()
        for token in tokens where token.type.isRefreshToken {
            let isOwn = CacheKey.normalized(token.clientID) == client
            let isFamily = family != nil && token.family.map(CacheKey.normalized) == family
            if isOwn || isFamily { withToken.insert(CacheKey.normalized(token.homeAccountID)) }
        }
        var chosen: [String: CachedAccount] = [:]
        var order: [String] = []
        for account in records {
            let home = CacheKey.normalized(account.homeAccountID)
            if signedInOnly {
                switch try accountMetadata.signInState(of: account.homeAccountID) {
                case .signedOut?: continue
                case .signedIn?: break
                default: guard withToken.contains(home) else { continue }
                }
            }
            // msalAccountsFromMSIDAccounts: one account per home account ID, a tenant profile
            // per record; the home tenant's record gives the account its fields.
            if let kept = chosen[home] {
                chosen[home] = !kept.isHomeTenantRecord && account.isHomeTenantRecord
                    ? account.addingTenantProfiles(of: kept) : kept.addingTenantProfiles(of: account)
            } else {
                chosen[home] = account
                order.append(home)
            }
        }
        if order.isEmpty { _ = try? keychainCache.wipeInfo() }
        var listed = order.compactMap { chosen[$0] }
        for account in try otherAccessor.accounts(clientID: clientID, familyID: family) {
            let home = CacheKey.normalized(account.homeAccountID)
            guard chosen[home] == nil, try accountMetadata.signInState(of: account.homeAccountID) != .signedOut
            else { continue }
            chosen[home] = account
            listed.append(account)
        }
        return listed
    }

    /// ``TokenCache/knows(account:)``.
    func knows(account identifier: String) throws(TokenCacheError) -> Bool {
        let snapshot = try credentialCache.entries(ofTypes: Array(ItemType.accounts))
        return snapshot.account(named: identifier, in: environmentAliases) != nil
    }

    /// ``TokenCache/accountStates()``.
    func accountStates() throws(TokenCacheError) -> [AccountState] {
        let types = Array(ItemType.accounts) + (try stateRefreshTypes()) + [ItemType.appMetadata]
        let snapshot = try credentialCache.entries(ofTypes: types)
        return try states(in: snapshot, family: family(from: snapshot.anyAppMetadata(clientID: clientID)))
    }

    /// ``TokenCache/accountStates(usernames:)``: one query per user, on the keychain account every
    /// item of a user shares in this environment (`<home_account_id>-<environment>`), so it reads
    /// what those users hold, not the group's other accounts.
    func accountStates(homeAccountIDs: [String]) throws(TokenCacheError) -> [AccountState] {
        let types = Set(Array(ItemType.accounts) + (try stateRefreshTypes()))
        var seen = Set<String>()
        var items: [KeychainItem] = []
        for home in homeAccountIDs where seen.insert(CacheKey.normalized(home)).inserted {
            let query = KeychainQuery(group: accessGroup, account: CacheKey.account(homeAccountID: home, environment: environment))
            items += try keychainCache.items(matching: query).filter { $0.type.map(types.contains) == true }
        }
        return try states(in: keychainCache.decoded(items), family: family(from: try appMetadataItem(anyEnvironment: true)))
    }

    /// The refresh-token types that make an account usable: the family tokens' own type first in
    /// single-FRT mode.
    private func stateRefreshTypes() throws(TokenCacheError) -> [UInt32] {
        (try credentialCache.checkFRTEnabled() ? [CredentialType.familyRefreshToken, .refreshToken] : [.refreshToken]).map(\.itemType)
    }

    /// Each account record of `snapshot` (one per home account) with its usable refresh token and
    /// this client's sign-in state; `family`: the client's family, from its app metadata.
    private func states(in snapshot: CacheSnapshot, family: String?) throws(TokenCacheError) -> [AccountState] {
        let metadata = try accountMetadata.readAccountMetadata()?.value
        let family = family.map(CacheKey.normalized)
        let client = CacheKey.normalized(clientID)
        var withToken = Set<String>()
        for entry in snapshot.credentials where entry.value.type.isRefreshToken {
            let token = entry.value
            if CacheKey.normalized(token.clientID) == client || (family != nil && token.family.map(CacheKey.normalized) == family) {
                withToken.insert(CacheKey.normalized(token.homeAccountID))
            }
        }
        var seen = Set<String>()
        return snapshot.accounts.map(\.value).compactMap { account in
            let home = CacheKey.normalized(account.homeAccountID)
            guard seen.insert(home).inserted else { return nil }
            return AccountState(
                username: account.username, homeAccountID: account.homeAccountID, hasRefreshToken: withToken.contains(home),
                signInState: metadata?.entry(for: account.homeAccountID).map(\.state).flatMap { $0 == .unknown ? nil : $0 })
        }
    }
}
