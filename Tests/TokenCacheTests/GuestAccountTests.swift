import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The emulated issuer's identity model: one home tenant and one home account ID per user, guest
/// profiles in other tenants, and what MSAL writes, lists, acquires and removes for them.
@Suite("Guest accounts")
struct GuestAccountTests {
    static let alice = "alice@contoso.com"
    static let contoso = EmulatedIssuer.tenantID(for: "contoso.com")
    static let fabrikam = EmulatedIssuer.tenantID(for: "fabrikam.com")
    static let northwind = EmulatedIssuer.tenantID(for: "northwind.com")

    /// `<oid>.<tid>` of the user's home tenant, derived from the username's domain.
    static func homeAccountID(_ username: String, tenantID: String) -> String {
        "\(EmulatedIssuer.objectID(username: username, tenantID: tenantID)).\(tenantID)"
    }

    /// The home tenant comes from the username's domain; `common`, `organizations`, no tenant and
    /// the home domain all authenticate there; Microsoft-account domains are the consumers tenant.
    @Test func homeTenantComesFromTheUsernamesDomain() {
        let issuer = EmulatedIssuer()
        let home = issuer.user(username: Self.alice, tenant: "common")
        #expect(home.tenantID == Self.contoso)
        #expect(home.homeAccountID == Self.homeAccountID(Self.alice, tenantID: Self.contoso))
        #expect(home.objectID == EmulatedIssuer.objectID(username: Self.alice, tenantID: Self.contoso))
        for tenant in ["", "organizations", "Contoso.com", Self.contoso.uppercased()] {
            #expect(issuer.user(username: Self.alice, tenant: tenant) == home, "tenant '\(tenant)'")
        }
        let consumer = issuer.user(username: "carol@outlook.com", tenant: "common")
        #expect(consumer.tenantID == EmulatedIssuer.consumersTenantID)
        #expect(consumer.homeAccountID.hasSuffix(".\(EmulatedIssuer.consumersTenantID)"))
        #expect(EmulatedIssuer.homeTenantID(forUsername: "dave@Hotmail.com") == EmulatedIssuer.consumersTenantID)
        #expect(EmulatedIssuer.homeTenantID(forUsername: "eve") == EmulatedIssuer.organizationsTenantID)
    }

    /// A sign-in to another tenant is a guest profile: the same home account ID and
    /// `client_info`, that tenant's realm, object ID and ID-token `tid`/`oid`.
    @Test func guestProfileKeepsTheHomeAccountID() throws {
        let issuer = EmulatedIssuer()
        let home = issuer.user(username: Self.alice, tenant: "common")
        let guest = issuer.user(username: Self.alice, tenant: "fabrikam.com")
        #expect(guest.homeAccountID == home.homeAccountID)
        #expect(guest.clientInfo == home.clientInfo)
        #expect(guest.tenantID == Self.fabrikam)
        #expect(guest.objectID == EmulatedIssuer.objectID(username: Self.alice, tenantID: Self.fabrikam))
        #expect(guest.objectID != home.objectID)
        #expect(issuer.user(username: Self.alice, tenant: Self.fabrikam) == guest)
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let token = issuer.idToken(for: guest, clientID: Suite.mailClient, environment: "login.microsoftonline.com", issuedAt: now, expiresOn: now)
        let payload = try #require(token.split(separator: ".").dropFirst().first.flatMap { Base64URL.decode(String($0)) })
        let claims = try #require(CacheJSON.object(from: payload))
        #expect(claims["tid"] == .string(Self.fabrikam))
        #expect(claims["oid"] == .string(guest.objectID))
        let account = guest.account(environment: "login.microsoftonline.com")
        #expect(account.tenantProfiles == [
            TenantProfile(tenantID: Self.fabrikam, localAccountID: guest.objectID, environment: "login.microsoftonline.com", isHomeTenant: false)
        ])
    }

    /// What a guest sign-in writes (`MSIDDefaultTokenCacheAccessor saveTokensWithConfiguration`):
    /// an access token, an ID token and an account item per realm, and one refresh token per
    /// client, keyed by the home account ID, which the second sign-in overwrites.
    @Test(arguments: Backend.memoryAndKeyring)
    func saveTokens_whenGuestSignIn_shouldWriteOneRefreshTokenAndARecordPerRealm(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let home = try suite.mail.signIn(username: Self.alice)
        let guest = try suite.mail.signIn(username: Self.alice, tenant: "fabrikam.com")
        #expect(guest.account.homeAccountID == home.account.homeAccountID)
        #expect(guest.tenantID == Self.fabrikam)
        let user = "\(home.account.homeAccountID)-login.windows.net"
        let items = try suite.items().filter { $0.account == user }
        #expect(items.filter { $0.type == 1003 }.compactMap(\.service).sorted() == [Self.contoso, Self.fabrikam].sorted())
        #expect(items.filter { $0.type == 2003 }.count == 2)
        #expect(items.filter { $0.type == 2001 }.compactMap(\.service).sorted() == [
            "accesstoken-\(Suite.mailClient)-\(Self.contoso)-user.read", "accesstoken-\(Suite.mailClient)-\(Self.fabrikam)-user.read",
        ].sorted())
        let refreshTokens = items.filter { $0.type == 2002 }
        #expect(refreshTokens.compactMap(\.service).sorted() == ["refreshtoken-1--", "refreshtoken-\(Suite.mailClient)--"].sorted())
        let guestAccount = suite.json(try suite.item(account: user, service: Self.fabrikam))
        #expect(guestAccount["local_account_id"] == .string(EmulatedIssuer.objectID(username: Self.alice, tenantID: Self.fabrikam)))
        #expect(guestAccount["realm"] == .string(Self.fabrikam))
    }

    /// `allAccounts` lists a user once, with a tenant profile per realm, as
    /// `MSALAccountsProvider msalAccountsFromMSIDAccounts` merges them
    /// (MSALAccountsProviderTests testAllAccounts_whenMultipleDefaultAccountsInCache_shouldReturnThem:
    /// one user in a home and two guest tenants, another in a home and one guest tenant).
    @Test(arguments: Backend.memoryAndKeyring)
    func allAccounts_whenMultipleDefaultAccountsInCache_shouldReturnThem(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: Self.alice)
        try suite.mail.signIn(username: Self.alice, tenant: "fabrikam.com")
        try suite.mail.signIn(username: Self.alice, tenant: Self.northwind)
        let bob = try suite.mail.signIn(username: "bob@fabrikam.com", tenant: "organizations")
        try suite.mail.signIn(username: "bob@fabrikam.com", tenant: "contoso.com")

        for app in [suite.mail, suite.calendar] {
            let accounts = try app.accounts()
            #expect(accounts.map(\.homeAccountID) == [alice.account.homeAccountID, bob.account.homeAccountID])
            let first = try #require(accounts.first)
            #expect(first.username == Self.alice)
            #expect(first.tenantID == Self.contoso, "the home tenant's record gives the account its fields")
            #expect(first.tenantProfiles.map(\.tenantID) == [Self.contoso, Self.fabrikam, Self.northwind])
            #expect(first.tenantProfiles.map(\.isHomeTenant) == [true, false, false])
            #expect(first.tenantProfiles.map(\.localAccountID) == [Self.contoso, Self.fabrikam, Self.northwind].map {
                EmulatedIssuer.objectID(username: Self.alice, tenantID: $0)
            })
            #expect(first.tenantProfiles.allSatisfy { $0.environment == "login.windows.net" })
            let second = try #require(accounts.last)
            #expect(second.homeAccountID == Self.homeAccountID("bob@fabrikam.com", tenantID: Self.fabrikam))
            #expect(second.tenantProfiles.map(\.tenantID) == [Self.fabrikam, Self.contoso])
        }
    }

    /// A guest signed in first is listed under its home account ID all the same, the home
    /// tenant's profile first once the home sign-in follows.
    @Test func allAccountsPutsTheHomeTenantFirstWhateverTheOrderOfSignIns() throws {
        let suite = try Suite(.memory)
        let guest = try suite.mail.signIn(username: Self.alice, tenant: "fabrikam.com")
        #expect(try suite.mail.accounts().map(\.tenantProfiles) == [guest.account.tenantProfiles])
        let home = try suite.calendar.signIn(username: Self.alice)
        let listed = try #require(try suite.mail.accounts().first)
        #expect(listed.tenantID == home.tenantID)
        #expect(listed.tenantProfiles.map(\.tenantID) == [Self.contoso, Self.fabrikam])
    }

    /// Silent acquisition in a guest tenant: the access token is looked up by that realm, the
    /// refresh token by the home account ID only (`MSIDDefaultSilentTokenRequest`; IdentityCore
    /// MSIDDefaultSilentTokenRequestTests testAcquireTokenSilent_whenExpiredAccessTokenInCache_andTenantedAuthority_shouldRefreshToken).
    @Test(arguments: Backend.memoryAndKeyring)
    func acquireTokenSilent_whenTenantedAuthority_shouldUseThatRealmsTokenAndTheOneRefreshToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let home = try suite.mail.signIn(username: Self.alice)
        let guest = try suite.mail.signIn(username: Self.alice, tenant: "fabrikam.com")

        let cachedGuest = try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], tenant: "fabrikam.com")
        #expect(cachedGuest.source == .cache)
        #expect(cachedGuest.accessToken == guest.accessToken)
        #expect(cachedGuest.tenantID == Self.fabrikam)
        let cachedHome = try suite.mail.acquireTokenSilent(account: home.account.homeAccountID, scopes: ["user.read"])
        #expect(cachedHome.accessToken == home.accessToken)
        #expect(try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], tenant: "common").accessToken == home.accessToken)

        // A new scope in the guest tenant redeems the one refresh token for that realm.
        let refreshed = try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["files.read"], tenant: Self.fabrikam)
        #expect(refreshed.source == .refreshToken)
        #expect(refreshed.tenantID == Self.fabrikam)
        #expect(refreshed.account.homeAccountID == home.account.homeAccountID)
        #expect(refreshed.account.localAccountID == guest.account.localAccountID)
        // A tenant never signed in to, from a family app: the family refresh token makes its profile.
        let third = try suite.calendar.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], tenant: "northwind.com")
        #expect(third.source == .familyRefreshToken)
        #expect(third.tenantID == Self.northwind)
        #expect(try suite.mail.accounts().first?.tenantProfiles.map(\.tenantID) == [Self.contoso, Self.fabrikam, Self.northwind])
        // The home tenant's access token is untouched by the guest refreshes.
        #expect(try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["user.read"]).accessToken == home.accessToken)
    }

    /// `removeAccount` for a user with a guest profile (`MSALPublicClientApplication removeAccountImpl`,
    /// `MSIDDefaultTokenCacheAccessor clearCacheForAccount` with no authority: no realm in the
    /// query): this client's credentials in every realm go, the account items of every realm
    /// stay (MSIDDefaultAccessorSSOIntegrationTests testClearCacheForAccount_whenAccountProvided_shouldRemoveTokens).
    @Test(arguments: Backend.memoryAndKeyring)
    func clearCacheForAccount_whenGuestProfiles_shouldRemoveEveryRealmsTokensAndKeepAccounts(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let home = try suite.mail.signIn(username: Self.alice)
        try suite.mail.signIn(username: Self.alice, tenant: "fabrikam.com")
        let bob = try suite.mail.signIn(username: "bob@fabrikam.com")
        let user = "\(home.account.homeAccountID)-login.windows.net"

        // Two access tokens, two ID tokens, the client's refresh token and the family's.
        #expect(try suite.mail.remove(account: Self.alice) == 6)
        let left = try suite.items().filter { $0.account == user }
        #expect(left.compactMap(\.type).sorted() == [1003, 1003])
        #expect(try suite.mail.accounts().map(\.homeAccountID) == [bob.account.homeAccountID])
        #expect(throws: TokenCacheError.self) {
            try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], tenant: "fabrikam.com")
        }
    }
}
