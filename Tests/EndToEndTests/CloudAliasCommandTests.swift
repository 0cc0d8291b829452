import Foundation
import Testing

/// `--authority` and `--authority-host` from the command line: instance discovery's aliases and
/// `preferred_cache`, and the account-metadata authority map a `/common` sign-in writes.
@Suite("End to end: clouds, authorities and aliases")
struct CloudAliasCommandTests {
    let mailClient = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
    let notesClient = "7d3c1b2a-5e4f-4a6b-8c9d-0e1f2a3b4c5d"

    func app(_ cli: CLI, _ bundleID: String, client: String) throws -> [String] {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        return ["--app", bundleID, "--team", "ABCDE12345", "--entitlements", shared, "--client-id", client, "--family-id", "1"]
    }

    /// A family app on `login.windows.net` and one on `login.microsoftonline.com` share single
    /// sign-on (MSAL stores under `preferred_cache` and looks up across aliases).
    @Test func familyAppsOnTwoAliasesShareSingleSignOn() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try app(cli, "com.contoso.mail", client: mailClient)
        let notes = try app(cli, "com.contoso.notes", client: notesClient) + ["--authority-host", "login.windows.net"]
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--authority", "https://login.microsoftonline.com/common", "--json"] + mail)
        #expect(signIn.status == 0, "\(signIn.standardError)")
        let account = try #require(try signIn.jsonObject()["account"] as? [String: Any])
        #expect(account["environment"] as? String == "login.windows.net")
        let sso = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent", "--json"] + notes)
        #expect(sso.status == 0, "\(sso.standardError)")
        #expect(try sso.jsonObject()["source"] as? String == "family_refresh_token")
    }

    /// A `/common` sign-in writes the 5001 item twice (`--trace`): the sign-in state, then the
    /// authority map. A bad authority is refused with errSecParam and a message that says why.
    @Test func commonSignInWritesTheAuthorityMapAndBadAuthoritiesAreRefused() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try app(cli, "com.contoso.mail", client: mailClient)
        let traced = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--authority", "https://login.microsoftonline.com/common", "--trace"] + mail)
        #expect(traced.status == 0, "\(traced.standardError)")
        let metadataWrites = traced.standardError.split(separator: "\n").filter {
            $0.contains("account='authority_map'") && ($0.contains("SecItemUpdate") || $0.contains("SecItemAdd")) && !$0.contains("errSecItemNotFound")
        }
        #expect(metadataWrites.count == 2, "\(traced.standardError)")
        let http = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--authority", "http://login.microsoftonline.com/common"] + mail)
        #expect(http.status != 0)
        #expect(http.standardError.contains("HTTPS"))
        let unknown = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--authority", "https://login.contoso.com/common"] + mail)
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("invalid_instance"))
    }
}
