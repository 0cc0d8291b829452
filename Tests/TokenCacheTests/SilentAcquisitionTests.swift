import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// `acquireTokenSilent`: cache hits, refreshes with the app's or the family's refresh token,
/// and interaction required.
@Suite("Silent acquisition")
struct SilentAcquisitionTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func validAccessTokenComesFromTheCacheWithCaseInsensitiveScopes(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com", scopes: ["User.Read", "Mail.Read"])
        let before = try suite.items()
        let cached = try suite.mail.acquireTokenSilent(account: "ALICE@contoso.com", scopes: ["mail.read"])
        #expect(cached.source == .cache)
        #expect(cached.accessToken == signedIn.accessToken)
        #expect(cached.idToken == signedIn.idToken)
        #expect(cached.scopes == ["User.Read", "Mail.Read"])
        #expect(cached.account == signedIn.account)
        // By home account ID too; and a cache hit writes nothing.
        #expect(try suite.mail.acquireTokenSilent(account: signedIn.account.homeAccountID, scopes: ["user.read"]).source == .cache)
        #expect(try suite.items() == before)
        // A scope the token lacks needs a new one.
        let wider = try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read", "Calendars.Read"])
        #expect(wider.source == .refreshToken)
        #expect(wider.scopes == ["user.read", "Calendars.Read"])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func expiredAccessTokenIsRefreshedAndTheRefreshTokenRotated(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.legacy.signIn(username: "bob@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        let refreshService = "refreshtoken-\(Suite.legacyClient)--"
        let oldRefreshToken = suite.json(try suite.item(account: user, service: refreshService))["secret"]
        // Five minutes and one second before expiry the token is still good...
        suite.clock.advance(by: 3600 - 301)
        #expect(try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"]).source == .cache)
        // ...two seconds later it is inside MSAL's margin and gets refreshed.
        suite.clock.advance(by: 2)
        let refreshed = try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"])
        #expect(refreshed.source == .refreshToken)
        #expect(refreshed.accessToken != signedIn.accessToken)
        #expect(refreshed.expiresOn == suite.clock.now.addingTimeInterval(3600))
        let newRefreshToken = suite.json(try suite.item(account: user, service: refreshService))["secret"]
        #expect(newRefreshToken != oldRefreshToken)
        #expect(newRefreshToken?.stringValue?.hasPrefix("emulated-refresh-token.") == true)
        // The new access token replaced the old item: still one per client, realm and target.
        let accessTokens = try suite.items().filter { $0.type == 2001 }
        #expect(accessTokens.count == 1)
        #expect(suite.json(accessTokens.first)["secret"] == .string(refreshed.accessToken.value))
        #expect(suite.json(accessTokens.first)["expires_on"] == .string(String(Int(suite.clock.now.timeIntervalSince1970) + 3600)))
        #expect(try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"]).accessToken == refreshed.accessToken)
    }

    /// Outside single-FRT mode the app's own refresh token goes first, then the family's
    /// (IdentityCore MSIDSilentTokenRequest.m shouldCheckForFRTFirst is NO;
    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenRevokedAppRefreshTokenInCache_shouldFallbackToFamilyRefreshToken).
    @Test(arguments: Backend.memoryAndKeyring)
    func ownRefreshTokenFirstThenTheFamilysAndBothCopiesRotate(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        suite.clock.advance(by: 3600)
        let refreshed = try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(refreshed.source == .refreshToken)
        let own = suite.json(try suite.item(account: user, service: "refreshtoken-\(Suite.mailClient)--"))
        let family = suite.json(try suite.item(account: user, service: "refreshtoken-1--"))
        #expect(own["secret"] == family["secret"])
        #expect(own["cached_at"] == nil)
        // Without its own refresh token the app falls back to the family's.
        try suite.mail.keychain.delete(KeychainQuery(group: suite.group, account: user, service: "refreshtoken-\(Suite.mailClient)--"))
        suite.clock.advance(by: 3600)
        #expect(try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .familyRefreshToken)
    }

    /// An access token counts only with the account's ID token beside it
    /// (MSIDDefaultSilentTokenRequest.m resultWithAccessToken;
    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenAccessToken_butNoIDToken_shouldRefreshToken).
    @Test(arguments: Backend.memoryAndKeyring)
    func anAccessTokenWithoutItsIDTokenIsRefreshed(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.legacy.signIn(username: "bob@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        try suite.legacy.keychain.delete(KeychainQuery(group: suite.group, account: user, type: 2003))
        let silent = try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"])
        #expect(silent.source == .refreshToken)
        #expect(silent.accessToken != signedIn.accessToken)
    }

    /// A client that signed an account out asks for interaction before looking at any token
    /// (MSALPublicClientApplication.m acquireTokenSilentWithParameters, the early return after
    /// accountStateForParameters; MSALPublicClientApplicationTests
    /// testRemoveAccount_whenAccountExists_andIsFociClient_shouldRemoveAccount_andMarkClientNonFoci).
    @Test(arguments: Backend.memoryAndKeyring)
    func aSignedOutAccountNeedsInteractionEvenWithAFamilyToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        #expect(try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"]).source == .familyRefreshToken)
        try suite.calendar.remove(account: "alice@contoso.com")
        let error = #expect(throws: TokenCacheError.self) {
            try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"])
        }
        #expect(error?.message.contains("Account is signed out, user interaction is required.") == true)
        // Mail, which did not sign alice out, still gets tokens.
        #expect(throws: Never.self) { try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]) }
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func siblingAppOfTheFamilyGetsATokenThroughTheFamilyRefreshToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        // Calendar never signed anyone in, and sees mail's account through the family token.
        #expect(try suite.calendar.accounts().map(\.username) == ["alice@contoso.com"])
        let sso = try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"])
        #expect(sso.source == .familyRefreshToken)
        #expect(sso.account.homeAccountID == signedIn.account.homeAccountID)
        #expect(sso.accessToken != signedIn.accessToken)
        // Calendar now has tokens of its own, and wrote the family token last.
        #expect(try suite.item(account: user, service: "refreshtoken-\(Suite.calendarClient)--") != nil)
        #expect(suite.json(try suite.item(account: user, service: "refreshtoken-1--"))["client_id"] == .string(Suite.calendarClient))
        let idToken = try #require(try suite.item(account: user, service: "idtoken-\(Suite.calendarClient)-\(sso.tenantID)-"))
        #expect(suite.json(idToken)["client_id"] == .string(Suite.calendarClient))
        #expect(try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"]).source == .cache)
        // Mail's own access token is untouched by calendar's.
        #expect(try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).accessToken == signedIn.accessToken)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func appOutsideTheFamilyCannotRedeemTheFamilyToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        let error = #expect(throws: TokenCacheError.self) {
            try suite.legacy.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        }
        guard case .interactionRequired(let reason, let lastWipe)? = error else {
            Issue.record("expected interactionRequired, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("not a member of family 1"))
        #expect(lastWipe == nil)
        #expect(error?.status == .itemNotFound)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func noRefreshTokenMeansInteractionRequired(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let unknown = #expect(throws: TokenCacheError.self) {
            try suite.mail.acquireTokenSilent(account: "nobody@contoso.com", scopes: ["user.read"])
        }
        #expect(unknown == .interactionRequired(reason: "no account 'nobody@contoso.com' is in the cache", lastWipe: nil))
        #expect(unknown?.message == "interaction_required: no account 'nobody@contoso.com' is in the cache")

        let signedIn = try suite.legacy.signIn(username: "bob@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        // Still valid: no refresh token needed.
        try suite.legacy.keychain.delete(KeychainQuery(group: suite.group, account: user, type: 2002))
        #expect(try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"]).source == .cache)
        suite.clock.advance(by: 3600)
        let error = #expect(throws: TokenCacheError.self) {
            try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"])
        }
        guard case .interactionRequired(let reason, nil)? = error else {
            Issue.record("expected interactionRequired without wipe record, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("no refresh token of client \(Suite.legacyClient)"))
        #expect(!error.debugDescription.contains(signedIn.accessToken.value))
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func badArgumentsAreRefused(_ backend: Backend) throws {
        let suite = try Suite(backend)
        #expect(throws: TokenCacheError.invalidArgument("at least one scope is needed")) {
            try suite.mail.signIn(username: "alice@contoso.com", scopes: [" "])
        }
        #expect(throws: TokenCacheError.invalidArgument("the username is empty")) {
            try suite.mail.signIn(username: "  ")
        }
        let error = #expect(throws: TokenCacheError.self) {
            try suite.app("com.contoso.empty", client: " ")
        }
        #expect(error?.status == .param)
        #expect(try suite.cacheItems().isEmpty)
    }
}

/// Single-FRT mode (IdentityCore MSIDAccountCredentialCache checkFRTEnabled and
/// MSIDDefaultTokenCacheAccessor saveRefreshTokenWithConfiguration; MSIDAccountCredentialsCacheTests
/// testCheckFRTEnabled_whenNoItemInCacheAndFeatureEnabled_shouldReturnActive and
/// ..._whenItemInCacheIsEnabledAndFeatureNotEnabled_shouldReturnDisabledByKeychainItem;
/// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenSingleFamilyRefreshTokenEnabled_shouldUseItAndSucceed).
@Suite("Single-FRT mode")
struct SingleFRTTests {
    func app(_ suite: Suite, _ bundleID: String, client: String, flight: SingleFRTFlight?) throws -> TokenCache {
        let base = try suite.app(bundleID, client: client, family: "1")
        var configuration = base.configuration
        configuration.singleFRTFlight = flight
        return try TokenCache(keychain: base.keychain, configuration: configuration, now: suite.clock.function)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func theFlightSwitchesTheWholeGroupToOneFamilyToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let mail = try app(suite, "com.contoso.flighted", client: Suite.mailClient, flight: .on)
        let result = try mail.signIn(username: "alice@contoso.com")
        let user = "\(result.account.homeAccountID)-login.windows.net"
        // The shared flag item, written by the flight.
        let flag = try #require(try suite.item(account: "useSingleFRT", service: "useSingleFRT"))
        #expect(suite.json(flag) == ["use_single_frt": .bool(true)])
        #expect(flag.generic == nil && flag.type == nil)
        // One FamilyRefreshToken (2008) and no per-client or classic family copy.
        let refreshTokens = try suite.items().filter { $0.type == 2002 || $0.type == 2008 }
        #expect(refreshTokens.map(\.service) == ["familyrefreshtoken-1--"])
        let frt = suite.json(try suite.item(account: user, service: "familyrefreshtoken-1--"))
        #expect(frt["credential_type"] == .string("FamilyRefreshToken"))
        #expect(frt["client_id"] == .string(Suite.mailClient))
        #expect(frt["family_id"] == .string("1"))
        // Every app of the group follows the item, flight or not: Calendar lists alice through
        // the FRT and redeems it.
        #expect(try suite.calendar.accounts().map(\.username) == ["alice@contoso.com"])
        #expect(try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"]).source == .familyRefreshToken)
        #expect(try suite.items().filter { $0.type == 2002 }.isEmpty)
        // Mail's own refreshes go through it too: it is tried first.
        suite.clock.advance(by: 3600)
        #expect(try mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .familyRefreshToken)
        // The flight off writes false, and the next sign-in is classic again.
        let off = try app(suite, "com.contoso.flighted", client: Suite.mailClient, flight: .off)
        try off.signIn(username: "bob@contoso.com")
        #expect(suite.json(try suite.item(account: "useSingleFRT", service: "useSingleFRT")) == ["use_single_frt": .bool(false)])
        #expect(try suite.items().contains { $0.service == "refreshtoken-\(Suite.mailClient)--" })
    }
}
