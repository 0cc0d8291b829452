import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// Export to and import from MSAL's serialized JSON cache.
@Suite("Serialized cache interop")
struct InteropTests {
    static let environment = "login.windows.net"

    /// A group with two users, two family apps sharing the family token, a non-family app and
    /// fields no version of this module knows.
    static func populated(_ backend: Backend) throws -> (Suite, alice: AuthenticationResult, bob: AuthenticationResult) {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com", scopes: ["User.Read", "Mail.Read"])
        let bob = try suite.legacy.signIn(username: "bob@fabrikam.com", tenant: "fabrikam.com")
        _ = try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"])
        let user = "\(alice.account.homeAccountID)-\(environment)"
        try suite.edit(account: user, service: "accesstoken-\(Suite.mailClient)-\(alice.tenantID)-user.read mail.read") {
            $0["x_ms_custom"] = .string("kept")
            $0["refresh_on"] = .string("1700001800")
        }
        try suite.edit(account: user, service: alice.tenantID) {
            $0["x_extra"] = .array([.integer(1), .bool(true), .null, .number(1.5), .object(["k": .string("v")])])
        }
        return (suite, alice, bob)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func exportWritesMSALPythonKeysByDefault(_ backend: Backend) throws {
        let (suite, alice, bob) = try Self.populated(backend)
        let exported = try #require(CacheJSON.object(from: try suite.mail.exportCache()))
        let a = "\(alice.account.homeAccountID)-\(Self.environment)"
        let b = "\(bob.account.homeAccountID)-\(Self.environment)"
        let refreshTokens = try #require(exported["RefreshToken"]?.objectValue)
        // MSAL Python: keyed with the target, one per user and client; the family token (last
        // written by calendar) folds into calendar's entry.
        for (key, value) in refreshTokens {
            let token = try #require(value.objectValue)
            guard case .string(let home)? = token["home_account_id"], case .string(let client)? = token["client_id"] else {
                Issue.record("no home_account_id or client_id in \(key)")
                continue
            }
            let target: String
            if case .string(let written)? = token["target"] { target = written } else { target = "" }
            #expect(key == "\(home)-\(Self.environment)-refreshtoken-\(client)--\(target)".lowercased())
        }
        #expect(Set(refreshTokens.keys.map { String($0.prefix(while: { $0 != "-" })) }).count == 2)
        #expect(refreshTokens.keys.filter { $0.hasPrefix(a) }.count == 2)
        #expect(refreshTokens.keys.filter { $0.hasPrefix(b) }.count == 1)
        #expect(!refreshTokens.keys.contains { $0.contains("-refreshtoken-1--") })
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func exportUsesTheSerializedCacheKeys(_ backend: Backend) throws {
        let (suite, alice, bob) = try Self.populated(backend)
        let exported = try #require(CacheJSON.object(from: try suite.mail.exportCache(keyStyle: .sharedKeychainV1)))
        #expect(Set(exported.keys) == ["AccessToken", "RefreshToken", "IdToken", "Account", "AppMetadata"])
        let a = "\(alice.account.homeAccountID)-\(Self.environment)"
        let b = "\(bob.account.homeAccountID)-\(Self.environment)"
        let keys = { (section: String) in Set(exported[section]?.objectValue?.keys.map { $0 } ?? []) }
        #expect(keys("AccessToken") == [
            "\(a)-accesstoken-\(Suite.mailClient)-\(alice.tenantID)-user.read mail.read",
            "\(a)-accesstoken-\(Suite.calendarClient)-\(alice.tenantID)-calendars.read",
            "\(b)-accesstoken-\(Suite.legacyClient)-\(bob.tenantID)-user.read",
        ])
        #expect(keys("RefreshToken") == [
            "\(a)-refreshtoken-\(Suite.mailClient)--",
            "\(a)-refreshtoken-\(Suite.calendarClient)--",
            "\(a)-refreshtoken-1--",
            "\(b)-refreshtoken-\(Suite.legacyClient)--",
        ])
        #expect(keys("IdToken") == [
            "\(a)-idtoken-\(Suite.mailClient)-\(alice.tenantID)-",
            "\(a)-idtoken-\(Suite.calendarClient)-\(alice.tenantID)-",
            "\(b)-idtoken-\(Suite.legacyClient)-\(bob.tenantID)-",
        ])
        #expect(keys("Account") == ["\(a)-\(alice.tenantID)", "\(b)-\(bob.tenantID)"])
        #expect(keys("AppMetadata") == [
            "appmetadata-\(Self.environment)-\(Suite.mailClient)",
            "appmetadata-\(Self.environment)-\(Suite.calendarClient)",
            "appmetadata-\(Self.environment)-\(Suite.legacyClient)",
        ])
        let familyToken = exported["RefreshToken"]?.objectValue?["\(a)-refreshtoken-1--"]?.objectValue
        #expect(familyToken?["client_id"] == .string(Suite.calendarClient))
        #expect(familyToken?["family_id"] == .string("1"))
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func exportImportExportIsByteForByteEqual(_ backend: Backend) throws {
        let (source, alice, _) = try Self.populated(backend)
        let first = try source.mail.exportCache()
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.contains("\"x_ms_custom\" : \"kept\""))
        #expect(text.contains("\"x_extra\""))
        #expect(!text.contains("TokenWipe"))
        #expect(!text.contains("signed_in"))

        let target = try Suite(backend)
        #expect(try target.cacheItems().isEmpty)
        #expect(try target.mail.importCache(first) == 3 + 4 + 3 + 2 + 3)
        let second = try target.mail.exportCache()
        #expect(second == first)

        // The imported items are laid out as the SDK writes them.
        let layout = { (items: [KeychainItem]) in
            // Account metadata is the SDK's keychain state, not part of MSAL's serialized cache.
            Set(items.filter { $0.type != 5001 }.map { "\($0.account)|\($0.service)|\($0.generic.map { String(decoding: $0, as: UTF8.self) } ?? "")|\($0.type ?? 0)" })
        }
        #expect(layout(try target.items()) == layout(try source.items()))
        // And they work: the access token is served from the imported cache, the family token too.
        let cached = try target.mail.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        #expect(cached.source == .cache)
        #expect(cached.accessToken == alice.accessToken)
        target.clock.advance(by: 7200)
        // Calendar redeemed the family token before the export, so it has its own refresh
        // token now, which goes first; a family app that never signed in uses the family's.
        #expect(try target.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"]).source == .refreshToken)
        let sibling = try target.app("com.contoso.tasks", client: "0a1b2c3d-5555-4555-8555-555555555555", family: "1")
        #expect(try sibling.acquireTokenSilent(account: "alice@contoso.com", scopes: ["tasks.read"]).source == .familyRefreshToken)
    }

    /// MSAL Python's own shape (refresh token keyed with its target, fields we do not know):
    /// keys are opaque, identity comes from the fields, and a family refresh token becomes both
    /// keychain items the iOS SDKs keep.
    @Test(arguments: Backend.memoryAndKeyring)
    func importTreatsKeysAsOpaqueAndKeepsUnknownFields(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let home = "uid.utid"
        let input = """
        {"RefreshToken": {"any key at all": {
            "credential_type": "RefreshToken", "secret": "rt-secret", "home_account_id": "\(home)",
            "environment": "login.microsoftonline.com", "client_id": "\(Suite.mailClient)", "target": "user.read openid",
            "last_modification_time": "1700000000", "family_id": "1"}},
         "Account": {"\(home)-login.microsoftonline.com-utid": {
            "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "realm": "utid",
            "local_account_id": "uid", "username": "erin@contoso.com", "authority_type": "MSSTS",
            "account_source": "authorization_code"}}}
        """
        #expect(try suite.mail.importCache(Data(input.utf8)) == 3)
        let items = try suite.items()
        let refreshTokens = items.filter { $0.type == 2002 }
        #expect(Set(refreshTokens.map(\.service)) == ["refreshtoken-\(Suite.mailClient)--", "refreshtoken-1--"])
        #expect(refreshTokens.allSatisfy { suite.json($0)["last_modification_time"] == .string("1700000000") })
        let account = try #require(items.first { $0.type == 1003 })
        #expect(suite.json(account)["account_source"] == .string("authorization_code"))
        // The family token serves a sibling that never signed in.
        #expect(try suite.calendar.accounts().map(\.username) == ["erin@contoso.com"])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func importAcceptsNumericTimestampsAndKeepsThemAsWritten(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let home = "uid.utid"
        let input = """
        {"AccessToken": {"\(home)-login.microsoftonline.com-accesstoken-client-utid-user.read": {
            "credential_type": "AccessToken", "secret": "at-secret", "home_account_id": "\(home)",
            "environment": "login.microsoftonline.com", "client_id": "client", "realm": "utid",
            "target": "User.Read", "cached_at": 1700000000, "expires_on": 1700003600}},
         "IdToken": {"\(home)-login.microsoftonline.com-idtoken-client-utid-": {
            "credential_type": "IdToken", "secret": "id-token", "home_account_id": "\(home)",
            "environment": "login.microsoftonline.com", "client_id": "client", "realm": "utid"}},
         "Account": {"\(home)-login.microsoftonline.com-utid": {
            "home_account_id": "\(home)", "environment": "login.microsoftonline.com", "realm": "utid",
            "local_account_id": "uid", "username": "dana@contoso.com", "authority_type": "MSSTS"}}}
        """
        // An access token counts only with its ID token (MSIDDefaultSilentTokenRequest resultWithAccessToken).
        #expect(try suite.mail.importCache(Data(input.utf8)) == 3)
        let token = try #require(try suite.items().first { $0.type == 2001 })
        #expect(token.account == "\(home)-login.microsoftonline.com")
        #expect(token.service == "accesstoken-client-utid-user.read")
        #expect(suite.json(token)["expires_on"] == .integer(1_700_003_600))
        let app = try suite.app("com.contoso.client", client: "client")
        #expect(try app.acquireTokenSilent(account: "dana@contoso.com", scopes: ["user.read"]).accessToken.value == "at-secret")
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func malformedImportIsRefusedAndWritesNothing(_ backend: Backend) throws {
        let (source, alice, _) = try Self.populated(backend)
        let exported = try #require(CacheJSON.object(from: try source.mail.exportCache()))
        let a = "\(alice.account.homeAccountID)-\(Self.environment)"
        let refreshKey = try #require(exported["RefreshToken"]?.objectValue?.keys.first { $0.hasPrefix("\(a)-refreshtoken-\(Suite.mailClient)--") })

        func edited(_ section: String, _ change: (inout [String: JSONValue]) -> Void) -> Data {
            var root = exported
            var entries = root[section]?.objectValue ?? [:]
            change(&entries)
            root[section] = .object(entries)
            return CacheJSON.data(root)
        }
        func entry(_ section: String, _ key: String) -> [String: JSONValue] {
            exported[section]?.objectValue?[key]?.objectValue ?? [:]
        }
        let cases: [(input: Data, section: String, key: String?, reason: String)] = [
            (Data("not json".utf8), "(root)", nil, "the input is not a JSON object"),
            (Data("[1, 2]".utf8), "(root)", nil, "the input is not a JSON object"),
            (CacheJSON.data(exported.merging(["Tokens": .object([:])]) { $1 }), "Tokens", nil,
             "unknown section; expected AccessToken, RefreshToken, IdToken, Account, AppMetadata"),
            (CacheJSON.data(exported.merging(["IdToken": .array([])]) { $1 }), "IdToken", nil, "must be an object, but it is an array"),
            (edited("RefreshToken") { $0[refreshKey]?.removeSecret() }, "RefreshToken", refreshKey, "'secret' is missing"),
            (edited("RefreshToken") { $0[refreshKey] = .string("x") }, "RefreshToken", refreshKey, "must be an object, but it is a string"),
            (edited("RefreshToken") {
                var copy = entry("RefreshToken", refreshKey)
                copy["secret"] = .string("a-different-secret")
                $0["zzz-any-key"] = .object(copy)
            }, "RefreshToken", "zzz-any-key",
             "it and RefreshToken['\(refreshKey)'] are the same keychain item with different contents"),
            (edited("RefreshToken") {
                var token = entry("RefreshToken", refreshKey)
                token["expires_on"] = .string("soon")
                $0[refreshKey] = .object(token)
            }, "RefreshToken", refreshKey, "'expires_on' must be whole epoch seconds, like \"1700000000\""),
            (edited("Account") {
                let key = "\(a)-\(alice.tenantID)"
                var account = entry("Account", key)
                account["authority_type"] = .string("Kerberos")
                $0[key] = .object(account)
            }, "Account", "\(a)-\(alice.tenantID)", "'authority_type' is 'Kerberos'; expected MSSTS, AAD, MSA or ADFS"),
            (edited("IdToken") {
                let key = "\(a)-idtoken-\(Suite.mailClient)-\(alice.tenantID)-"
                $0[key] = .object(entry("AccessToken", "\(a)-accesstoken-\(Suite.mailClient)-\(alice.tenantID)-user.read mail.read"))
            }, "IdToken", "\(a)-idtoken-\(Suite.mailClient)-\(alice.tenantID)-", "'credential_type' is AccessToken, which belongs in AccessToken"),
        ]
        let target = try Suite(backend)
        for (input, section, key, reason) in cases {
            let error = #expect(throws: TokenCacheError.self) { try target.mail.importCache(input) }
            #expect(error == .invalidImport(section: section, key: key, reason: reason))
            #expect(error?.status == .param)
            #expect(error?.message.hasSuffix("; nothing was written") == true)
            // Valid sections sort before the bad ones, and still nothing was written.
            #expect(try target.cacheItems().isEmpty)
        }
    }

    @Test("an export encoded a section at a time holds the bytes of encoding the whole cache, empty sections included", arguments: Backend.memoryAndKeyring)
    func exportSectionsAreTheWholeEncoding(_ backend: Backend) throws {
        let (suite, _, _) = try Self.populated(backend)
        let exported = try suite.mail.exportCache()
        let object = try #require(CacheJSON.object(from: exported))
        #expect(object["AppMetadata"] != nil)
        #expect(exported == CacheJSON.encode(.object(object), pretty: true))
        let empty = try Suite(backend).mail.exportCache()
        let emptyObject = try #require(CacheJSON.object(from: empty))
        #expect(emptyObject.values.allSatisfy { $0.objectValue?.isEmpty == true })
        #expect(empty == CacheJSON.encode(.object(emptyObject), pretty: true))
    }
}

extension JSONValue {
    /// Drops `secret` from an object value.
    mutating func removeSecret() {
        guard case .object(var object) = self else { return }
        object["secret"] = nil
        self = .object(object)
    }
}
