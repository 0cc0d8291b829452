import Foundation
import SharedKeychain

/// What the group holds for one account, as a check after many apps worked on it needs it: the
/// items only the account's own sign-ins write, and the entry this client's account metadata
/// (one item the whole client ID shares) keeps for it.
public struct AccountState: Sendable, Hashable {
    /// The sign-in name.
    public var username: String
    /// The home account ID (`<uid>.<utid>`).
    public var homeAccountID: String
    /// Whether a refresh token of the account that this app can use (its client's, or its
    /// family's) is in the group.
    public var hasRefreshToken: Bool
    /// This client's sign-in state for the account, from its account metadata (or a record of
    /// the emulator's earlier layout); nil when neither has an entry.
    public var signInState: SignInState?
}

extension TokenCache {
    /// Every account record of the group (any environment, one per home account), with its
    /// refresh token and this client's sign-in state: what ``accounts()`` decides from, given
    /// apart so that a check can tell a lost account-metadata entry (MSAL's read-modify-write of
    /// one shared item) from a lost token.
    public func accountStates() throws(TokenCacheError) -> [AccountState] {
        let refreshTypes = try singleFRTEnabled() ? [CredentialType.familyRefreshToken, .refreshToken] : [.refreshToken]
        let types = Array(ItemType.accounts) + refreshTypes.map(\.itemType) + [ItemType.appMetadata, ItemType.legacySignInState]
        let snapshot = decoded(try items(ofTypes: types))
        let metadata = try readAccountMetadata()?.value
        let family = familyForLookup(in: snapshot).map(CacheKey.normalized)
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
                signInState: snapshot.signInState(clientID: clientID, homeAccountID: account.homeAccountID, metadata: metadata))
        }
    }
}
