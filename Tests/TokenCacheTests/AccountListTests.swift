import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The group-scoped account list, with MSAL's `allAccounts` semantics.
@Suite("Account list")
struct AccountListTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func accountsAreFilteredByClientAndFamily(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        let bob = try suite.legacy.signIn(username: "bob@contoso.com")
        // Mail sees its own account; bob's only refresh token is legacy's, outside any family.
        #expect(try suite.mail.accounts() == [alice.account])
        // Calendar signed nobody in; family 1 shows alice.
        #expect(try suite.calendar.accounts() == [alice.account])
        // Legacy's app metadata says "no family": only its own tokens count.
        #expect(try suite.legacy.accounts() == [bob.account])
        // An app with no app metadata yet is assumed to be in family 1, as MSAL assumes, even
        // when the server would not let it redeem the family token.
        let viewer = try suite.app("com.contoso.viewer", client: "0a1b2c3d-4444-4444-8444-444444444444")
        #expect(try viewer.accounts() == [alice.account])
        #expect(throws: TokenCacheError.self) { try viewer.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]) }
        // Once it signs someone in, its app metadata (no family) narrows the list to its own.
        let carol = try viewer.signIn(username: "carol@contoso.com")
        #expect(try viewer.accounts() == [carol.account])
        // Both family apps list alice; none lists bob or carol.
        #expect(try suite.mail.accounts().map(\.username) == ["alice@contoso.com"])
    }

    /// `signed_out` in this client's account metadata hides an account other apps' tokens would
    /// show; `signed_in` lists one with no refresh token at all (MSIDDefaultAccessorSSOIntegrationTests
    /// testAccountsWithAuthority_whenReturnSignedInAccountTrue_shouldFilterOutSignedOutAccountInDefaultCache
    /// and ..._shouldIncludeSignedInAccountWithoutRefreshToken).
    @Test(arguments: Backend.memoryAndKeyring)
    func signedOutStateHidesAnAccountOtherAppsTokensWouldShow(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        try suite.calendar.signIn(username: "alice@contoso.com")
        try suite.calendar.remove(account: "alice@contoso.com")
        // Mail signs in again: the family token (client_id mail, family 1) would list alice in calendar...
        try suite.mail.signIn(username: "alice@contoso.com")
        let familyTokens = try suite.items().filter { $0.type == 2002 }.map { suite.json($0) }
        #expect(familyTokens.contains { $0["client_id"] == .string(Suite.mailClient) && $0["family_id"] == .string("1") })
        // ...but calendar's signed_out state overrides it.
        #expect(try suite.calendar.accounts().isEmpty)
        #expect(try suite.mail.accounts() == [alice.account])
        let state = try #require(try suite.item(account: "authority_map", service: Suite.calendarClient))
        #expect(state.type == 5001)
        let entry = suite.json(state)["account_metadata_map"]?.objectValue?[alice.account.homeAccountID]?.objectValue
        #expect(entry?["sign_in_state"] == .string("signed_out"))
        // Signing in again flips it back.
        try suite.calendar.signIn(username: "alice@contoso.com")
        let again = suite.json(try suite.item(account: "authority_map", service: Suite.calendarClient))
        #expect(again["account_metadata_map"]?.objectValue?[alice.account.homeAccountID]?.objectValue?["sign_in_state"] == .string("signed_in"))
        #expect(try suite.calendar.accounts() == [alice.account])
        // signed_in lists an account whose refresh tokens are all gone.
        try suite.mail.keychain.delete(KeychainQuery(group: suite.group, type: 2002))
        #expect(try suite.calendar.accounts() == [alice.account])
        #expect(try suite.legacy.accounts().isEmpty)
    }

    /// One entry per home account, and no environment filter: MSAL's `allAccounts` passes no
    /// authority (MSALAccountsProvider allAccounts; MSALPublicClientApplicationTests
    /// testAllAccounts_when2AccountExists_shouldReturn2Accounts lists accounts of two environments).
    @Test(arguments: Backend.memoryAndKeyring)
    func oneEntryPerHomeAccountInAnyEnvironment(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        let bob = try suite.mail.signIn(username: "bob@contoso.com")
        let again = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(try suite.mail.accounts() == [alice.account, bob.account])
        #expect(again.account == alice.account)
        // The same client configured for another cloud still lists them.
        let sovereign = try TokenCache(
            keychain: suite.mail.keychain,
            configuration: TokenCacheConfiguration(clientID: Suite.mailClient, authorityHost: "login.microsoftonline.us", familyID: "1"))
        #expect(try sovereign.accounts() == [alice.account, bob.account])
        #expect(sovereign.accessGroup == suite.group)
    }

    /// A cache of the emulator's earlier layout: a per-account sign-in record (type 4001), which
    /// no SDK writes, is converted into the client's account-metadata item in one explicit
    /// place (``TokenCache/convertEarlierLayout()``, one whole-group read) and deleted; no
    /// ordinary operation reads it. What the record said (alice signed out of calendar) is kept.
    @Test(arguments: Backend.memoryAndKeyring)
    func earlierLayoutSignInRecordsAreConvertedInOneExplicitPlace(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        try suite.mail.signIn(username: "bob@contoso.com")
        let home = alice.account.homeAccountID
        let record: JSONObject = [
            "client_id": .string(Suite.calendarClient), "home_account_id": .string(home),
            "environment": .string("login.microsoftonline.com"), "sign_in_state": .string("signed_out"),
        ]
        try suite.calendar.keychain.add(NewItem(
            account: "\(home)-login.microsoftonline.com", service: "signinstate-\(Suite.calendarClient)", group: suite.calendar.accessGroup,
            generic: nil, type: ItemType.legacySignInState, data: CacheJSON.data(record), accessibility: .afterFirstUnlockThisDeviceOnly))
        #expect(try suite.calendar.convertEarlierLayout() == 1)
        #expect(try suite.items().filter { $0.type == ItemType.legacySignInState }.isEmpty)
        #expect(try suite.calendar.accounts().map(\.username) == ["bob@contoso.com"])
        #expect(throws: TokenCacheError.self) { try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]) }
        try suite.calendar.signIn(username: "carol@contoso.com")
        #expect(try suite.calendar.accounts().map(\.username).sorted() == ["bob@contoso.com", "carol@contoso.com"])
        #expect(try suite.calendar.convertEarlierLayout() == 0)
    }

    /// MSAL's `returnOnlySignedInAccounts = NO` (microsoft-authentication-library-for-objc #988;
    /// MSIDDefaultAccessorSSOIntegrationTests
    /// testAccountsWithAuthority_whenReturnSignedInAccountFalse_shouldReturnAllAvailableAccounts):
    /// every account record, the one this client signed out included and marked so.
    @Test(arguments: Backend.memoryAndKeyring)
    func accountsWithAuthority_whenReturnSignedInAccountFalse_shouldReturnAllAvailableAccounts(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        let bob = try suite.legacy.signIn(username: "bob@contoso.com")
        try suite.calendar.signIn(username: "alice@contoso.com")
        try suite.calendar.remove(account: "alice@contoso.com")
        #expect(try suite.calendar.accounts().isEmpty)
        let listed = try suite.calendar.accountsIncludingSignedOut()
        #expect(listed.map(\.account) == [alice.account, bob.account])
        #expect(listed.map(\.signInState) == [.signedOut, nil])
        #expect(listed.map(\.isSignedOut) == [true, false])
        let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(listed)) as? [[String: Any]])
        #expect(json.first?["username"] as? String == "alice@contoso.com")
        #expect(json.first?["signInState"] as? String == "signed_out")
        #expect(json.first?["signedOut"] as? Bool == true)
    }

    /// MSAL's `accountForUsername:` (MSALPublicClientApplication): the signed-in account of that
    /// username, any case; none for a signed-out one; a blank username is refused.
    @Test(arguments: Backend.memoryAndKeyring)
    func accountForUsernameFindsSignedInAccountsOnly(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(try suite.mail.account(username: "Alice@Contoso.com") == alice.account)
        #expect(try suite.mail.account(username: "bob@contoso.com") == nil)
        try suite.mail.remove(account: "alice@contoso.com")
        #expect(try suite.mail.account(username: "alice@contoso.com") == nil)
        #expect(throws: TokenCacheError.invalidArgument("No username is provided: give the account's username (UPN), like alice@contoso.com")) {
            try suite.mail.account(username: " ")
        }
    }
}
