import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The items a sign-in writes: attributes and values exactly as the SDKs lay them out.
@Suite("Item layout and values")
struct ItemLayoutTests {
    struct Row: Hashable, CustomStringConvertible {
        let account: String
        let service: String
        let generic: String?
        let type: UInt32?
        var description: String { "\(account) | \(service) | \(generic ?? "nil") | \(type.map(String.init) ?? "nil")" }
    }

    static let environment = "login.windows.net"

    @Test(arguments: Backend.memoryAndKeyring)
    func signInWritesEveryItemWithTheSDKsAttributes(_ backend: Backend) throws {
        let suite = try Suite(backend)
        // The user's home tenant, named by its domain (another tenant would be a guest profile).
        let result = try suite.mail.signIn(username: "Alice@Contoso.com", tenant: " Contoso.com ", scopes: ["User.Read", "Mail.Read"])
        let tid = EmulatedIssuer.tenantID(for: "contoso.com")
        let oid = EmulatedIssuer.objectID(username: "alice@contoso.com", tenantID: tid)
        let home = "\(oid).\(tid)"
        #expect(result.account.homeAccountID == home)
        #expect(result.tenantID == tid)
        let user = "\(home)-\(Self.environment)"
        let client = Suite.mailClient
        let expected: Set<Row> = [
            Row(account: user, service: "accesstoken-\(client)-\(tid)-user.read mail.read", generic: "accesstoken-\(client)-\(tid)", type: 2001),
            Row(account: user, service: "refreshtoken-\(client)--", generic: "refreshtoken-\(client)-", type: 2002),
            Row(account: user, service: "refreshtoken-1--", generic: "refreshtoken-1-", type: 2002),
            Row(account: user, service: "idtoken-\(client)-\(tid)-", generic: "idtoken-\(client)-\(tid)", type: 2003),
            Row(account: user, service: tid, generic: "alice@contoso.com", type: 1003),
            Row(account: Self.environment, service: "appmetadata-\(client)", generic: "1", type: 3001),
            // Account metadata: one item per client (MSIDAccountMetadataCacheKey.m).
            Row(account: "authority_map", service: client, generic: nil, type: 5001),
        ]
        let rows = try suite.cacheItems().map {
            Row(account: $0.account, service: $0.service, generic: $0.generic.map { String(decoding: $0, as: UTF8.self) }, type: $0.type)
        }
        #expect(rows.count == expected.count)
        #expect(Set(rows) == expected)
        #expect(try suite.items().allSatisfy { $0.group == suite.group && $0.creator == nil && $0.provenance?.addedBy == "com.contoso.mail" })
        // MSIDKeychainTokenCache.m saveData: every item MSAL adds is afterFirstUnlockThisDeviceOnly.
        #expect(try suite.cacheItems().allSatisfy { $0.accessibility == .afterFirstUnlockThisDeviceOnly })
        // The account metadata: this client signed this account in (MSIDAccountMetadataCacheItem.m),
        // and the domain authority it asked was answered by the tenant (updateAuthorityURL).
        let metadata = suite.json(try suite.item(account: "authority_map", service: client))
        let authorityMap: JSONValue = .object([
            "URLMap-": .object(["https://login.microsoftonline.com/contoso.com": .string("https://login.microsoftonline.com/\(tid)")]),
        ])
        #expect(metadata == [
            "client_id": .string(client),
            "account_metadata_map": .object([home: .object([
                "client_id": .string(client), "home_account_id": .string(home), "athority_map": authorityMap,
                "sign_in_state": .string("signed_in"),
            ])]),
        ])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func appOutsideAFamilyWritesNoFamilyTokenAndAnEmptyFamilyID(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.legacy.signIn(username: "bob@contoso.com")
        let items = try suite.items()
        #expect(items.filter { $0.type == 2002 }.map(\.service) == ["refreshtoken-\(Suite.legacyClient)--"])
        let metadata = try #require(items.first { $0.type == 3001 })
        // MSIDAppMetadataCacheKey.m: the generic is the family's bytes, empty for "".
        #expect(metadata.generic == Data())
        #expect(suite.json(metadata) == [
            "client_id": .string(Suite.legacyClient), "environment": .string(Self.environment), "family_id": .string(""),
        ])
        #expect(suite.json(items.first { $0.type == 2002 })["family_id"] == nil)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func valuesFollowTheUnifiedSchemaWithStringTimestamps(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let result = try suite.mail.signIn(username: "Alice@Contoso.com", scopes: ["User.Read", "Mail.Read"])
        let home = result.account.homeAccountID
        let tid = EmulatedIssuer.homeTenantID(forUsername: "alice@contoso.com")
        let user = "\(home)-\(Self.environment)"
        let items = try suite.items()
        let accessToken = suite.json(items.first { $0.type == 2001 })
        #expect(accessToken == [
            "credential_type": .string("AccessToken"), "secret": .string(result.accessToken.value),
            "home_account_id": .string(home), "environment": .string(Self.environment),
            "client_id": .string(Suite.mailClient), "realm": .string(tid), "target": .string("User.Read Mail.Read"),
            "cached_at": .string("1700000000"), "expires_on": .string("1700003600"), "extended_expires_on": .string("1700007200"),
        ])
        let refreshToken = suite.json(try suite.item(account: user, service: "refreshtoken-\(Suite.mailClient)--"))
        let familyToken = suite.json(try suite.item(account: user, service: "refreshtoken-1--"))
        #expect(refreshToken["credential_type"] == .string("RefreshToken"))
        #expect(refreshToken["client_id"] == .string(Suite.mailClient))
        // "Save a separate entry for MRRT": the client's own copy has no family_id
        // (MSIDDefaultTokenCacheAccessor saveRefreshTokenWithConfiguration;
        // MSIDCacheSchemaValidationTests testSchemaComplianceForRefreshToken_...).
        #expect(refreshToken["family_id"] == nil)
        #expect(refreshToken["realm"] == nil)
        // Only access tokens carry cached_at (MSIDOauth2Factory fillAccessToken;
        // testSchemaComplianceForRefreshToken_whenMSSTSResponse_withAADAccount).
        #expect(refreshToken["cached_at"] == nil)
        #expect(refreshToken["secret"]?.stringValue?.hasPrefix("emulated-refresh-token.") == true)
        // The family token is the same token, stored under the family ID, with this app as
        // client_id and the family (testSchemaComplianceForFamilyRefreshToken_...).
        var withFamily = refreshToken
        withFamily["family_id"] = .string("1")
        #expect(familyToken == withFamily)
        let account = suite.json(items.first { $0.type == 1003 })
        #expect(account["home_account_id"] == .string(home))
        #expect(account["environment"] == .string(Self.environment))
        #expect(account["realm"] == .string(tid))
        #expect(account["username"] == .string("Alice@Contoso.com"))
        #expect(account["authority_type"] == .string("MSSTS"))
        #expect(account["name"] == .string("Alice"))
        #expect(account["local_account_id"] == .string(try #require(home.split(separator: ".").first).description))
        let clientInfo = try #require(account["client_info"]?.stringValue)
        #expect(try Self.decodeBase64URL(clientInfo) == [
            "uid": .string(String(home.prefix { $0 != "." })), "utid": .string(tid),
        ])
        let metadata = suite.json(items.first { $0.type == 3001 })
        #expect(metadata == ["client_id": .string(Suite.mailClient), "environment": .string(Self.environment), "family_id": .string("1")])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func idTokenIsAnUnsignedJWTThatSaysItIsEmulated(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let result = try suite.mail.signIn(username: "alice@contoso.com", tenant: "contoso.com")
        let idToken = try #require(result.idToken?.value)
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3)
        #expect(parts[2].isEmpty)
        #expect(try Self.decodeBase64URL(parts[0]) == ["alg": .string("none"), "typ": .string("JWT")])
        let claims = try Self.decodeBase64URL(parts[1])
        let tid = EmulatedIssuer.tenantID(for: "contoso.com")
        #expect(claims["emulated"] == .bool(true))
        #expect(claims["aud"] == .string(Suite.mailClient))
        #expect(claims["tid"] == .string(tid))
        #expect(claims["oid"] == .string(EmulatedIssuer.objectID(username: "alice@contoso.com", tenantID: tid)))
        #expect(claims["preferred_username"] == .string("alice@contoso.com"))
        #expect(claims["name"] == .string("Alice"))
        #expect(claims["iss"] == .string("https://login.microsoftonline.com/\(tid)/v2.0"))
        #expect(claims["iat"] == .integer(1_700_000_000))
        #expect(claims["exp"] == .integer(1_700_003_600))
        // The stored ID token is the one returned.
        #expect(suite.json(try suite.items().first { $0.type == 2003 })["secret"] == .string(idToken))
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func identifiersAreDeterministicAcrossApps(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let inMail = try suite.mail.signIn(username: "alice@contoso.com", tenant: "contoso.com")
        let inLegacy = try suite.legacy.signIn(username: "ALICE@contoso.com ", tenant: "Contoso.com")
        #expect(inMail.account.homeAccountID == inLegacy.account.homeAccountID)
        // One account record for both apps.
        #expect(try suite.items().filter { $0.type == 1003 }.count == 1)
        let other = try suite.mail.signIn(username: "bob@contoso.com", tenant: "contoso.com")
        #expect(other.account.homeAccountID != inMail.account.homeAccountID)
        // common and organizations authenticate in the user's home tenant, from the username's
        // domain: the same account as the sign-in that named it.
        #expect(try suite.mail.signIn(username: "alice@contoso.com").account == inMail.account)
        #expect(try suite.mail.signIn(username: "alice@contoso.com", tenant: "organizations").account == inMail.account)
        // As a tenant name, common and organizations are one fixed tenant; a GUID passes through, lowercased.
        #expect(EmulatedIssuer.tenantID(for: "common") == EmulatedIssuer.organizationsTenantID)
        #expect(EmulatedIssuer.tenantID(for: "organizations") == EmulatedIssuer.organizationsTenantID)
        #expect(EmulatedIssuer.tenantID(for: "72F988BF-86F1-41AF-91AB-2D7CD011DB47") == "72f988bf-86f1-41af-91ab-2d7cd011db47")
        #expect(EmulatedIssuer.tenantID(for: "fabrikam.com") != EmulatedIssuer.tenantID(for: "contoso.com"))
        // UUID-shaped, version 8, stable across runs.
        let oid = EmulatedIssuer.objectID(username: "alice@contoso.com", tenantID: EmulatedIssuer.organizationsTenantID)
        #expect(oid.range(of: "^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", options: .regularExpression) != nil)
        #expect(StableUUID.from("") == "6c62272e-07bb-8142-a2b8-21756295c58d")
    }

    /// A token response replaces credentials whole (their JSON is the new token's), and merges
    /// the account with its previous JSON (MSIDAccountCredentialCache saveAccount).
    @Test(arguments: Backend.memoryAndKeyring)
    func accountFieldsSurviveARewriteCredentialFieldsDoNot(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let first = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(first.account.homeAccountID)-\(Self.environment)"
        try suite.edit(account: user, service: "refreshtoken-1--") { $0["x_custom"] = .string("keep me") }
        try suite.edit(account: user, service: first.tenantID) {
            $0["x_other"] = .object(["nested": .array([.integer(1), .bool(true), .null])])
        }
        let oldSecret = suite.json(try suite.item(account: user, service: "refreshtoken-1--"))["secret"]
        suite.clock.advance(by: 10)
        let second = try suite.mail.signIn(username: "alice@contoso.com")
        let familyToken = suite.json(try suite.item(account: user, service: "refreshtoken-1--"))
        #expect(familyToken["x_custom"] == nil)
        // The known fields were rewritten.
        #expect(familyToken["cached_at"] == nil)
        #expect(familyToken["secret"] != oldSecret)
        let account = suite.json(try suite.item(account: user, service: first.tenantID))
        #expect(account["x_other"] == .object(["nested": .array([.integer(1), .bool(true), .null])]))
        #expect(account["username"] == .string("alice@contoso.com"))
        #expect(second.accessToken != first.accessToken)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func itemWithoutSecretIsRejected(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let result = try suite.mail.signIn(username: "alice@contoso.com")
        let user = "\(result.account.homeAccountID)-\(Self.environment)"
        let service = "accesstoken-\(Suite.mailClient)-\(result.tenantID)-user.read"
        try suite.edit(account: user, service: service) {
            $0["secret"] = nil
            $0["x_custom"] = .string("kept")
        }

        // Read directly, the value is refused with a reason naming the field.
        let object = suite.json(try suite.item(account: user, service: service))
        let fieldError = #expect(throws: FieldError.self) { try Credential(object: object) }
        #expect(fieldError?.reason == "'secret' is missing")
        // An export leaves it out, as every reader skips it, and reports it (never silently).
        let report = SkippedItemReport()
        var configuration = suite.mail.configuration
        configuration.skippedItems = report
        let reporting = try TokenCache(keychain: suite.mail.keychain, configuration: configuration, now: suite.clock.function)
        let exported = try #require(CacheJSON.object(from: try reporting.exportCache()))
        #expect(exported["AccessToken"]?.objectValue?.isEmpty == true)
        #expect(exported["RefreshToken"]?.objectValue?.isEmpty == false)
        #expect(report.items == [SkippedItem(group: suite.group, account: user, service: service, reason: "'secret' is missing")])
        // Token lookups skip it as the SDK does: the app's own refresh token is redeemed instead
        // (own first outside single-FRT mode: MSIDSilentTokenRequest shouldCheckForFRTFirst).
        let silent = try suite.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(silent.source == .refreshToken)
        let rewritten = suite.json(try suite.item(account: user, service: service))
        #expect(rewritten["secret"] == .string(silent.accessToken.value))
        #expect(rewritten["x_custom"] == nil)
        #expect(throws: Never.self) { try suite.mail.exportCache() }
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func secretsAreMaskedWhenPrinted(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let result = try suite.mail.signIn(username: "alice@contoso.com")
        let secret = result.accessToken.value
        var dumped = ""
        dump(result, to: &dumped)
        for text in ["\(result)", "\(result.accessToken)", String(reflecting: result), String(reflecting: result.accessToken), dumped] {
            #expect(!text.contains(secret))
            #expect(!text.contains(try #require(result.idToken?.value)))
        }
        #expect(result.accessToken.masked.hasPrefix("emulated-acc"))
        #expect(result.accessToken.masked.hasSuffix("(\(secret.count) chars)"))
        #expect(TokenSecret.mask("short") == "s…(5 chars)")
    }

    static func decodeBase64URL(_ text: String) throws -> [String: JSONValue] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64))
        return try #require(CacheJSON.object(from: data))
    }
}
