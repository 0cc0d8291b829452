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
    /// MSAL's `allAccounts` for this app (`MSALAccountsProvider allAccounts`, IdentityCore
    /// `MSIDDefaultTokenCacheAccessor accountsWithAuthority` with no authority): the account
    /// records of the group in ANY environment, kept when this client's account metadata says
    /// `signed_in` (even with no refresh token), dropped when it says `signed_out`, and
    /// otherwise kept when a refresh token of that home account has this app's `client_id` or
    /// the app's family as `family_id` (the family from the app metadata; ``TokenCache/defaultFamilyID``
    /// while it has none; none when the server said "no family").
    ///
    /// The SDK's queries in its order: the app metadata (`{service appmetadata-<cid>, type
    /// 3001}`, the family), the MSSTS accounts (`{type 1003}`), `useSingleFRT` and every refresh
    /// token (`{type 2002}`; `{type 2008}` first in single-FRT mode), every ID token
    /// (`{type 2003}`, for the claims the SDK attaches), this client's account metadata once per
    /// account record (`filterAndFillIdTokenClaimsForAccounts`), the wipe record when nothing is
    /// listed, and ADAL's items. One account per home account ID, as MSAL merges them
    /// (`MSALAccountsProvider msalAccountsFromMSIDAccounts`): the home tenant's record gives its
    /// fields, and ``CachedAccount/tenantProfiles`` has a profile per realm the user signed in
    /// to (a guest's beside the home tenant's).
    ///
    /// Then, as the default accessor asks its other accessor, the users of ADAL's legacy refresh
    /// tokens of this client or family (the legacy accessor's `accountsWithAuthority`), those already
    /// listed and those this client signed out left out (`filterSignedOutAccountsFromOtherAccessor`,
    /// one account-metadata read each).
    ///
    /// An ADAL app (``TokenCacheSDK/adal``) lists only the legacy users: ADAL keeps no account
    /// records of its own and reads none of MSAL's.
    public func accounts() throws(TokenCacheError) -> [CachedAccount] {
        try defaultAccessor.accounts()
    }

    /// Whether the group holds an account record of `identifier` (a username or a home account
    /// ID) in this environment, whichever app wrote it: a user the suite has signed in, with
    /// tokens or not. ``acquireToken(_:broker:)`` signs in interactively only users it knows,
    /// unless the request allows any (``TokenRequest/Prompt/always``).
    public func knows(account identifier: String) throws(TokenCacheError) -> Bool {
        try defaultAccessor.knows(account: identifier)
    }

    /// Every account record of the group (any environment, one per home account), with its
    /// refresh token and this client's sign-in state: what ``accounts()`` decides from, given
    /// apart so that a check can tell a lost account-metadata entry (MSAL's read-modify-write of
    /// one shared item) from a lost token.
    public func accountStates() throws(TokenCacheError) -> [AccountState] {
        try defaultAccessor.accountStates()
    }
}
