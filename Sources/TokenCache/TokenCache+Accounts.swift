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

    /// Whether ``TokenCache/accounts()`` lists the account, as it decides for an account record
    /// of MSAL's layout: this client's `signed_in`, or no state and a usable refresh token.
    public var isListed: Bool {
        signInState == .signedIn || (signInState == nil && hasRefreshToken)
    }
}

/// An account as MSAL lists it with `returnOnlySignedInAccounts = NO`, marked with this client's
/// sign-in state, so one this client signed out shows as such.
public struct ListedAccount: Sendable, Hashable, Encodable {
    /// The account, as ``TokenCache/accounts()`` gives it.
    public var account: CachedAccount
    /// This client's sign-in state for it (its account metadata); nil when it has no entry.
    public var signInState: SignInState?

    /// Whether this client signed the account out (`signed_out` in its account metadata).
    public var isSignedOut: Bool { signInState == .signedOut }

    private enum CodingKeys: String, CodingKey { case signInState, signedOut }

    /// The account's own fields, then `signInState` (`signed_in`, `signed_out`, or null) and
    /// `signedOut`.
    public func encode(to encoder: any Encoder) throws {
        try account.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(signInState?.rawValue, forKey: .signInState)
        try container.encode(isSignedOut, forKey: .signedOut)
    }
}

extension TokenCache {
    /// MSAL's accounts with `MSALAccountEnumerationParameters.returnOnlySignedInAccounts = NO`
    /// (microsoft-authentication-library-for-objc #988; IdentityCore `MSIDDefaultTokenCacheAccessor
    /// accountsWithAuthority:...signedInAccountsOnly:NO`): every account record of the group,
    /// whatever its refresh tokens or sign-in state, one per home account, then ADAL's users as
    /// ``accounts()`` adds them. Each is marked with this client's sign-in state, which the
    /// emulator reads for the mark (MSAL returns the accounts unmarked).
    public func accountsIncludingSignedOut() throws(TokenCacheError) -> [ListedAccount] {
        var listed: [ListedAccount] = []
        for account in try defaultAccessor.accounts(signedInOnly: false) {
            listed.append(ListedAccount(account: account, signInState: try defaultAccessor.accountMetadata.signInState(of: account.homeAccountID)))
        }
        return listed
    }

    /// MSAL's `accountForUsername:` (`MSALPublicClientApplication`, through
    /// `MSALAccountEnumerationParameters initWithIdentifier:nil username:`, which lists signed-in
    /// accounts only): the first of ``accounts()`` whose username is `username`, compared
    /// without regard to case (a UPN's case carries no meaning); nil when none is.
    ///
    /// - Throws: ``TokenCacheError/invalidArgument(_:)`` for a blank username ("No username is
    ///   provided", as MSAL says); the keychain's failures.
    public func account(username: String) throws(TokenCacheError) -> CachedAccount? {
        guard !username.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalidArgument("No username is provided: give the account's username (UPN), like alice@contoso.com")
        }
        return try accounts().first { $0.username.lowercased() == username.lowercased() }
    }

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

    /// ``accountStates()`` of `usernames` only, in this cache's environment: one query per user
    /// (every item of a user shares its keychain account), so a check of the users a run signed
    /// in reads what they hold, not every account of a group of thousands. A user the issuer
    /// would give the same home account ID is read once; a user with no account record is absent.
    public func accountStates(usernames: some Sequence<String>) throws(TokenCacheError) -> [AccountState] {
        try defaultAccessor.accountStates(homeAccountIDs: usernames.map { issuer.user(username: $0, tenant: "common").homeAccountID })
    }
}
