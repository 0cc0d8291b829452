import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// Instance discovery, authorities and environment aliases, after IdentityCore's
/// `MSIDAadAuthorityCache.m`, `MSIDAADAuthority.m`, `MSIDDefaultTokenCacheAccessor.m` and their
/// tests (`MSIDAadAuthorityCacheTests.m`, `MSIDAADAuthorityTests.m`,
/// `MSIDAccountCredentialsCacheTests.m`).
@Suite("Clouds, authorities and environment aliases")
struct CloudAliasTests {
    /// An app of `suite`'s team on its store, configured for `host`.
    func app(_ suite: Suite, _ bundleID: String, client: String, host: String, family: String? = "1") throws -> TokenCache {
        let identity = try AppIdentity(
            bundleID: bundleID, teamID: suite.team,
            entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"]), source: bundleID)
        return try TokenCache(
            keychain: Keychain(app: identity, store: suite.store, now: suite.clock.function),
            configuration: TokenCacheConfiguration(clientID: client, authorityHost: host, familyID: family),
            now: suite.clock.function)
    }

    // MARK: instance discovery

    /// `testCacheAliasesForAuthority_withDifferentPreferredCache_shouldReturnArrayInProperOrder`:
    /// the preferred cache first, then the environment asked for, then the other aliases.
    @Test func cacheAliasesForAuthority_withDifferentPreferredCache_shouldReturnArrayInProperOrder() throws {
        let publicCloud = try #require(InstanceDiscovery.cloud(for: "LOGIN.microsoftonline.com"))
        #expect(publicCloud.preferredCache == "login.windows.net")
        #expect(publicCloud.preferredNetwork == "login.microsoftonline.com")
        #expect(publicCloud.cacheAliases(for: "login.microsoftonline.com").ordered
            == ["login.windows.net", "login.microsoftonline.com", "login.microsoft.com", "sts.windows.net"])
        #expect(publicCloud.cacheAliases(for: "login.windows.net").ordered
            == ["login.windows.net", "login.microsoftonline.com", "login.microsoft.com", "sts.windows.net"])
    }

    /// The sovereign clouds of the discovery answer, each its own preferred cache, and none an
    /// alias of another.
    @Test func sovereignCloudsKeepTheirOwnPreferredCache() throws {
        let china = try #require(InstanceDiscovery.cloud(for: "login.chinacloudapi.cn"))
        #expect(china.preferredCache == "login.partner.microsoftonline.cn")
        #expect(china.aliases == ["login.partner.microsoftonline.cn", "login.chinacloudapi.cn"])
        let usGov = try #require(InstanceDiscovery.cloud(for: "login.usgovcloudapi.net"))
        #expect(usGov.preferredCache == "login.microsoftonline.us")
        #expect(!usGov.cacheAliases(for: "login.microsoftonline.us").contains("login.windows.net"))
        #expect(InstanceDiscovery.cloud(for: "login.microsoftonline.de")?.aliases == ["login.microsoftonline.de"])
    }

    /// `testProcessMetadata_whenNilMetadata_shouldCreateDefaultEntry`: a trusted host the answer
    /// does not list is a cloud of its own; an untrusted one is refused as `invalid_instance`.
    @Test func processMetadata_whenHostNotInMetadata_shouldCreateDefaultEntry() throws {
        let france = try #require(InstanceDiscovery.cloud(for: "login.sovcloud-identity.fr"))
        #expect(france.preferredCache == "login.sovcloud-identity.fr" && france.aliases == ["login.sovcloud-identity.fr"])
        #expect(InstanceDiscovery.cloud(for: "login.contoso.com") == nil)
        #expect(throws: AuthorityError.unknownInstance(host: "login.contoso.com")) { try Authority(parsing: "https://login.contoso.com/common") }
        #expect(try Authority(parsing: "https://login.contoso.com/common", validated: false).cacheEnvironment == "login.contoso.com")
        #expect(throws: TokenCacheError.self) {
            try TokenCache(keychain: Suite(.memory).mail.keychain, configuration: TokenCacheConfiguration(clientID: "c", authorityHost: "login.contoso.com"))
        }
    }

    // MARK: authorities

    /// `MSIDAADAuthorityTests` / `MSIDAADTenant`: common, organizations, consumers, a tenant ID
    /// and a domain name; the URL normalized to host and first path component.
    @Test(arguments: [
        ("https://login.microsoftonline.com/common", "common", Authority.TenantType.common),
        ("https://login.microsoftonline.com/Organizations/", "organizations", .organizations),
        ("https://login.microsoftonline.com/consumers/oauth2/v2.0/authorize", "consumers", .consumers),
        ("https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47", "72f988bf-86f1-41af-91ab-2d7cd011db47", .identifier),
        ("https://LOGIN.windows.net/contoso.onmicrosoft.com", "contoso.onmicrosoft.com", .identifier),
    ])
    func initWithURL_whenAADAuthority_shouldParseTenant(_ text: String, _ tenant: String, _ type: Authority.TenantType) throws {
        let authority = try Authority(parsing: text)
        #expect(authority.tenant == tenant)
        #expect(authority.tenantType == type)
        #expect(authority.url == "https://\(authority.host)/\(tenant)")
        #expect(authority.cacheEnvironment == "login.windows.net")
    }

    /// `MSIDAuthority isAuthorityFormatValid` ("authority must use HTTPS"), `normalizedAuthorityUrl`
    /// (a host and a path), and `MSIDAADAuthority` refusing ADFS, B2C and CIAM URLs.
    @Test func isAuthorityFormatValid_whenNotAADAuthority_shouldRefuseNamingWhy() {
        #expect(throws: AuthorityError.notHTTPS("http://login.microsoftonline.com/common")) { try Authority(parsing: "http://login.microsoftonline.com/common") }
        #expect(throws: AuthorityError.noTenant("https://login.microsoftonline.com")) { try Authority(parsing: "https://login.microsoftonline.com") }
        #expect(throws: AuthorityError.unsupported("https://contoso.com/adfs", kind: "ADFS")) { try Authority(parsing: "https://contoso.com/adfs") }
        #expect(throws: AuthorityError.unsupported("https://login.microsoftonline.com/tfp/contoso/b2c_1_signin", kind: "B2C")) {
            try Authority(parsing: "https://login.microsoftonline.com/tfp/contoso/b2c_1_signin")
        }
        #expect(throws: AuthorityError.empty) { try Authority(parsing: "  ") }
        #expect(AuthorityError.notHTTPS("http://x/common").status == .param)
    }

    // MARK: storage and lookups

    /// `cacheEnvironmentWithContext` (`MSIDOauth2Factory.m` fillBaseToken / fillAccount,
    /// `saveAppMetadataWithConfiguration`): every item of a response is written under the
    /// cloud's `preferred_cache`, whichever alias the app is configured with.
    @Test(arguments: Backend.memoryAndKeyring)
    func tokensAreStoredUnderThePreferredCacheEnvironment(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(alice.account.environment == "login.windows.net")
        let environments = try suite.cacheItems().compactMap { suite.json($0)["environment"] }
        #expect(!environments.isEmpty)
        #expect(environments.allSatisfy { $0 == .string("login.windows.net") })
    }

    /// The done-means story: a family app on `login.windows.net` and one on
    /// `login.microsoftonline.com` share single sign-on, and each lists the other's user
    /// (`getRefreshableTokenWithAccount`, `accountsWithAuthority` with `environmentAliases`;
    /// `testGetCredentialsWithQuery_whenNotExactMatch_andRefreshTokenQuery_matchByEnvironmentAliases_shouldReturnItems`).
    @Test(arguments: Backend.memoryAndKeyring)
    func familyAppsOnDifferentAliasesShareSingleSignOn(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let onWindowsNet = try app(suite, "com.contoso.notes", client: Suite.calendarClient, host: "login.windows.net")
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        #expect(try onWindowsNet.accounts().map(\.username) == ["alice@contoso.com"])
        let silent = try onWindowsNet.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"])
        #expect(silent.source == .familyRefreshToken)
        #expect(silent.account.homeAccountID == alice.account.homeAccountID)
        // And back: the first app finds what the second wrote.
        #expect(try suite.mail.acquireTokenSilent(account: alice.account.homeAccountID, scopes: ["user.read"]).source == .cache)
    }

    /// `testGetCredentialsWithQuery_whenNotExactMatch_andAccessTokenQuery_matchByEnvironmentAliases_shouldReturnItems`:
    /// items written under another alias of the cloud (by an older SDK, or an import from MSAL
    /// Python under `login.microsoftonline.com`) are found; items of another cloud are not.
    @Test(arguments: Backend.memoryAndKeyring)
    func accessTokenQuery_matchByEnvironmentAliases_shouldReturnItems(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let onMicrosoftCom = try app(suite, "com.contoso.old", client: Suite.mailClient, host: "login.microsoft.com")
        // A cache whose preferred_cache differed when written: rewrite every environment to an alias.
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        for item in try suite.cacheItems() where suite.json(item)["environment"] != nil {
            try suite.edit(account: item.account, service: item.service) { $0["environment"] = .string("sts.windows.net") }
        }
        let found = try onMicrosoftCom.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(found.source == .cache)
        #expect(found.account.homeAccountID == alice.account.homeAccountID)
        let usGov = try app(suite, "com.contoso.gov", client: Suite.mailClient, host: "login.microsoftonline.us")
        #expect(throws: TokenCacheError.self) { try usGov.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]) }
    }

    // MARK: the authority map

    /// `MSIDTokenResponseValidator validateAndSaveTokenResponse` ->
    /// `updateAccountMetadataForHomeAccountId` -> `updateAuthorityURL`
    /// (`testUpdateAuthorityURL_whenUpdateExistingAuthorityMapping_shouldUpdate`): a `/common`
    /// sign-in maps `https://<host>/common` to `https://<host>/<tid>` under `URLMap-` in the
    /// entry's `athority_map` (the SDK's spelling), the item written a second time.
    @Test(arguments: Backend.memoryAndKeyring)
    func updateAuthorityURL_whenCommonAuthority_shouldWriteURLMap(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com", tenant: "common")
        let metadata = suite.json(try suite.item(account: AccountMetadataItem.account, service: Suite.mailClient))
        guard case .object(let accounts)? = metadata["account_metadata_map"],
              case .object(let entry)? = accounts[alice.account.homeAccountID]
        else { throw TestFailure("no account metadata entry for alice") }
        #expect(entry["athority_map"] == .object([
            "URLMap-": .object(["https://login.microsoftonline.com/common": .string("https://login.microsoftonline.com/\(alice.tenantID)")]),
        ]))
        #expect(entry["sign_in_state"] == .string("signed_in"))
    }

    /// `updateAuthorityURL` "No need to update if the request authority is the same as the
    /// authority used internally": a tenant-ID sign-in leaves the map empty and writes once.
    @Test(arguments: Backend.memoryAndKeyring)
    func updateAuthorityURL_whenSameAuthority_shouldNotWrite(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let tenant = EmulatedIssuer.tenantID(for: "contoso.onmicrosoft.com")
        let alice = try suite.mail.signIn(username: "alice@contoso.com", tenant: tenant)
        let metadata = suite.json(try suite.item(account: AccountMetadataItem.account, service: Suite.mailClient))
        guard case .object(let accounts)? = metadata["account_metadata_map"], case .object(let entry)? = accounts[alice.account.homeAccountID]
        else { throw TestFailure("no account metadata entry for alice") }
        #expect(entry["athority_map"] == .object([:]))
    }

    /// `MSALAADOauth2Provider issuerAuthorityWithAccount` -> `getAuthorityURL`
    /// (`testGetAuthorityURL_whenAuthorityMappingRecordExists_shouldReturnAuthorityMapping`): a
    /// silent request to the domain authority a sign-in used asks in the tenant the map names,
    /// and finds its access token there.
    @Test(arguments: Backend.memoryAndKeyring)
    func getAuthorityURL_whenAuthorityMappingRecordExists_shouldReturnAuthorityMapping(_ backend: Backend) throws {
        let suite = try Suite(backend)
        var configuration = suite.mail.configuration
        configuration.authorityTenant = "contoso.onmicrosoft.com"
        let mail = try TokenCache(keychain: suite.mail.keychain, configuration: configuration, now: suite.clock.function)
        let alice = try mail.signIn(username: "alice@contoso.com", tenant: "contoso.onmicrosoft.com")
        #expect(try mail.accountMetadata.authorityURL(forRequest: "https://login.microsoftonline.com/contoso.onmicrosoft.com", homeAccountID: alice.account.homeAccountID)
            == "https://login.microsoftonline.com/\(alice.tenantID)")
        #expect(try mail.issuerTenant(for: alice.account) == alice.tenantID)
        #expect(try mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .cache)
    }
}
