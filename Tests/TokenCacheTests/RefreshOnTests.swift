import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// `refresh_on` and proactive refresh (IdentityCore `MSIDAccessToken.m` `refreshNeeded`,
/// `MSIDSilentTokenRequest.m`), MSAL's `forceRefresh`, and where `cached_at` is written.
@Suite("refresh_on, proactive refresh, force refresh")
struct RefreshOnTests {
    static let notesClient = "0a1b2c3d-4444-4444-8444-444444444444"

    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenAT_RefreshInExpires_shouldRefreshToken
    /// and testAcquireTokenSilent_whenAccessATNotRefreshExpired_shouldReturnATAndRT: the server's
    /// `refresh_in` becomes the access token's `refresh_on`; before it the token comes from the
    /// cache, after it (though not expired) it is refreshed.
    @Test(arguments: Backend.memoryAndKeyring)
    func testAcquireTokenSilent_whenAT_RefreshInExpires_shouldRefreshToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let notes = try suite.app("com.contoso.notes", client: Self.notesClient, issuer: EmulatedIssuer(refreshIn: 600))
        let signedIn = try notes.signIn(username: "alice@contoso.com")
        let accessToken = { try suite.json(suite.items().first { $0.type == 2001 }) }
        #expect(try accessToken()["refresh_on"] == .string("1700000600"))
        #expect(try accessToken()["expires_on"] == .string("1700003600"))

        suite.clock.advance(by: 599)
        let before = try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(before.source == .cache)
        #expect(before.accessToken == signedIn.accessToken)

        suite.clock.advance(by: 2)
        let refreshed = try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(refreshed.source == .refreshToken)
        #expect(refreshed.accessToken != signedIn.accessToken)
        // The new token replaced the old one, with its own refresh_on.
        #expect(try suite.items().filter { $0.type == 2001 }.count == 1)
        #expect(try accessToken()["refresh_on"] == .string("1700001201"))
        #expect(try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).accessToken == refreshed.accessToken)
    }

    /// By default the emulated server sends no `refresh_in`, so no `refresh_on` is written and a
    /// token is used until the expiry margin.
    @Test(arguments: Backend.memoryAndKeyring)
    func withoutRefreshInNoRefreshOnIsWritten(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        #expect(suite.json(try suite.items().first { $0.type == 2001 })["refresh_on"] == nil)
        suite.clock.advance(by: 3600 - 301)
        #expect(try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .cache)
    }

    /// `MSIDAccessToken.m` `refreshNeeded`: a token cached in the future (the clock went back)
    /// needs refresh; else it does once `refresh_on` has passed; without `refresh_on`, never.
    @Test
    func refreshNeededFollowsMSIDAccessToken() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func token(cachedAt: Date?, refreshOn: Date?) -> Credential {
            Credential(
                type: .accessToken, secret: "s", homeAccountID: "uid.utid", environment: "login.microsoftonline.com", clientID: "c",
                realm: "utid", target: "user.read", cachedAt: cachedAt, expiresOn: now.addingTimeInterval(3600), refreshOn: refreshOn)
        }
        #expect(!token(cachedAt: now, refreshOn: nil).refreshNeeded(at: now))
        #expect(token(cachedAt: now.addingTimeInterval(1), refreshOn: nil).refreshNeeded(at: now))
        #expect(!token(cachedAt: now, refreshOn: now.addingTimeInterval(1)).refreshNeeded(at: now))
        #expect(token(cachedAt: now, refreshOn: now.addingTimeInterval(-1)).refreshNeeded(at: now))
        // refresh_on is read back as written: a string of epoch seconds.
        let written = token(cachedAt: now, refreshOn: now.addingTimeInterval(600))
        #expect(written.fields["refresh_on"] == .string("1700000600"))
        #expect(try Credential(object: written.fields).refreshOn == now.addingTimeInterval(600))
    }

    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenAccessTokenInCache_andForceRefreshYES_shouldRefreshToken.
    @Test(arguments: Backend.memoryAndKeyring)
    func testAcquireTokenSilent_whenAccessTokenInCache_andForceRefreshYES_shouldRefreshToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let forced = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .never, forceRefresh: true)).result
        #expect(forced.source == .refreshToken)
        #expect(forced.accessToken != signedIn.accessToken)
        let next = try suite.mail.acquireToken(TokenRequest(account: "alice@contoso.com", prompt: .never)).result
        #expect(next.source == .cache)
        #expect(next.accessToken == forced.accessToken)
    }

    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenAccessTokenInCache_andForceRefreshYES_andNoRefreshTokenFound_shouldReturnError.
    @Test(arguments: Backend.memoryAndKeyring)
    func testAcquireTokenSilent_whenAccessTokenInCache_andForceRefreshYES_andNoRefreshTokenFound_shouldReturnError(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.legacy.signIn(username: "bob@contoso.com")
        let user = "\(signedIn.account.homeAccountID)-login.windows.net"
        try suite.legacy.keychain.delete(KeychainQuery(group: suite.group, account: user, type: 2002))
        let error = #expect(throws: TokenCacheError.self) {
            try suite.legacy.acquireToken(TokenRequest(account: "bob@contoso.com", prompt: .never, forceRefresh: true))
        }
        guard case .interactionRequired(let reason, _)? = error else {
            Issue.record("expected interactionRequired, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("no refresh token of client \(Suite.legacyClient)"))
        // Without force the cached token still answers.
        #expect(try suite.legacy.acquireToken(TokenRequest(account: "bob@contoso.com", prompt: .never)).result.source == .cache)
    }

    /// MSIDCacheSchemaValidationTests testSchemaComplianceForAccessToken_/IDToken_/RefreshToken_/
    /// FamilyRefreshToken_whenMSSTSResponse_withAADAccountAndFociClient: `cached_at` only on the
    /// access token (`MSIDOauth2Factory.m` `fillAccessToken`), also after a refresh.
    @Test(arguments: Backend.memoryAndKeyring)
    func cachedAtIsWrittenOnAccessTokensOnly(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        suite.clock.advance(by: 3600)
        _ = try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        let credentials = try suite.items().filter { [2001, 2002, 2003].contains($0.type) }
        #expect(credentials.count == 4)
        for item in credentials {
            #expect((suite.json(item)["cached_at"] != nil) == (item.type == 2001), "item \(item.service) type \(item.type)")
        }
        #expect(suite.json(credentials.first { $0.type == 2001 })["cached_at"] == .string("1700003600"))
    }
}
