import Foundation
import Testing

/// The token cache across app processes: the README's "Token cache" session, and sign-ins
/// racing each other.
@Suite("End to end: token cache across app processes")
struct TokenCacheProcessTests {
    let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    func apps(_ cli: CLI) throws -> (mail: [String], calendar: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let common = ["--team", "ABCDE12345", "--entitlements", shared, "--client-id", clientID, "--family-id", "1"]
        return (["--app", "com.contoso.mail"] + common, ["--app", "com.contoso.calendar"] + common)
    }

    /// The new user's story of MSAL ObjC #821 ("Failed to set item into keychain"): an app
    /// whose entitlements lack the cache group signs in and gets its token with one warning
    /// naming -34018 and exit 0 (`MSIDTokenResponseValidator` `validateAndSaveTokenResponse`
    /// logs the failed save and returns the result); its next silent acquire and its account
    /// list fail with the keychain error, as on a device. Before the first unlock: -25308.
    @Test func validateAndSaveTokenResponseReturnsTheTokenWhenTheSaveFails() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let lonely = try cli.entitlements("lonely", groups: ["$(AppIdentifierPrefix)com.contoso.notes"])
        let notes = ["--app", "com.contoso.notes", "--team", "ABCDE12345", "--entitlements", lonely, "--client-id", clientID]
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--trace"] + notes)
        #expect(signIn.status == 0, "\(signIn.standardError)")
        #expect(signIn.output.contains("access token:"))
        let warnings = signIn.standardError.split(separator: "\n").filter { $0.hasPrefix("warning:") }
        #expect(warnings.count == 1, "\(signIn.standardError)")
        #expect(warnings.first?.contains("errSecMissingEntitlement (-34018)") == true)
        #expect(warnings.first?.contains("SecItemCopyMatching") == true)
        #expect(!signIn.standardError.contains("type=4001"), "the SDK never reads {type 4001}")
        let json = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--json"] + notes)
        #expect(json.status == 0)
        let failures = try #require(try json.jsonObject()["cacheSaveFailures"] as? [[String: Any]])
        #expect(failures.map { $0["step"] as? String } == ["account_metadata", "tokens"])
        #expect(failures.allSatisfy { $0["status"] as? Int == -34018 && $0["itemsWritten"] as? Int == 0 })
        let silent = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + notes)
        #expect(silent.status == 13, "\(silent.standardError)")
        #expect(silent.standardError.contains("errSecMissingEntitlement (-34018)"))
        #expect(try cli.run(["token", "accounts"] + notes).status == 13)

        let (mail, _) = try apps(cli)
        #expect(try cli.run(["device", "reboot"]).status == 0)
        let locked = try cli.run(["token", "signin", "--user", "bob@contoso.com"] + mail)
        #expect(locked.status == 0, "\(locked.standardError)")
        #expect(locked.standardError.contains("errSecInteractionNotAllowed (-25308)"))
        #expect(try cli.run(["device", "unlock"]).status == 0)
        let listed = try cli.run(["token", "accounts", "--json"] + mail)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(!listed.output.contains("bob@contoso.com"))
    }

    @Test func wipeBySiblingForcesInteractionAndIsRecorded() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)

        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--json"] + mail)
        #expect(signIn.status == 0, "\(signIn.standardError)")
        let signed = try signIn.jsonObject()
        #expect(signed["source"] as? String == "interactive")
        let token = try #require(signed["accessToken"] as? String)
        #expect(token.contains("…"), "secrets are masked by default")

        let accounts = try #require(try cli.run(["token", "accounts", "--json"] + calendar).json() as? [[String: Any]])
        #expect(accounts.map { $0["username"] as? String } == ["alice@contoso.com"])

        // SSO: calendar never signed in. The suite shares one client ID, so mail's access token
        // serves calendar as is, and a new scope is minted from mail's refresh token, which is
        // calendar's own (the same client ID), tried before the family's.
        let sso = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent", "--json", "--show-secrets"] + calendar)
        #expect(sso.status == 0, "\(sso.standardError)")
        #expect(try sso.jsonObject()["source"] as? String == "cache")
        #expect((try sso.jsonObject()["accessToken"] as? String)?.contains("…") == false)
        let newScope = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent", "--scopes", "calendars.read", "--json"] + calendar)
        #expect(try newScope.jsonObject()["source"] as? String == "refresh_token")

        #expect(try cli.run(["token", "wipe"] + calendar).status == 0)

        let failed = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent", "--json"] + mail)
        #expect(failed.status == 20)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(failed.standardError.utf8)) as? [String: [String: Any]])
        #expect(error["error"]?["code"] as? String == "interaction_required")
        // As on a device, a full wipe leaves no wipe record to name who made it.
        #expect((error["error"]?["message"] as? String)?.contains("last wiped") == false)
        let info = try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()
        #expect(info["bundleId"] == nil || info["bundleId"] is NSNull)
        // A removal does leave one: MSAL writes it after each refresh-token delete.
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        #expect(try cli.run(["token", "remove", "--account", "alice@contoso.com"] + calendar).status == 0)
        let removed = try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()
        #expect(removed["bundleId"] as? String == "com.contoso.calendar")
    }

    /// A mistyped account is an error that says what to do, not a silent sign-in of a new user;
    /// a known account is signed in again, and --interactive signs in a new one.
    @Test func acquireSignsInOnlyKnownAccountsUnlessToldTo() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, _) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let typo = try cli.run(["token", "acquire", "--account", "alcie@contoso.com"] + mail)
        #expect(typo.status == 20)
        #expect(typo.standardError.contains("--interactive"))
        #expect(typo.standardError.contains("token signin"))
        let accounts = try #require(try cli.run(["token", "accounts", "--json"] + mail).json() as? [[String: Any]])
        #expect(accounts.count == 1)
        // alice's refresh token gone, her account record kept: signed in again without asking.
        #expect(try cli.run(["token", "remove", "--account", "alice@contoso.com"] + mail).status == 0)
        let again = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--json"] + mail)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try again.jsonObject()["source"] as? String == "interactive")
        let new = try cli.run(["token", "acquire", "--interactive", "--account", "bob@contoso.com", "--json"] + mail)
        #expect(new.status == 0, "\(new.standardError)")
        #expect(try new.jsonObject()["source"] as? String == "interactive")
    }

    /// Found by a newcomer: stdout ended with a newline, the --output file did not.
    @Test func anExportIsTheSameBytesOnStandardOutputAndInAFile() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, _) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let printed = try cli.run(["cache", "export"] + mail)
        let file = cli.fixtures.appendingPathComponent("export.json")
        #expect(try cli.run(["cache", "export", "--output", file.path] + mail).status == 0)
        let written = try Data(contentsOf: file)
        #expect(written.last == UInt8(ascii: "\n"))
        #expect(written == printed.standardOutput)
    }

    @Test func exportImportRoundTripsThroughFiles() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "bob@contoso.com"] + mail).status == 0)
        let exported = cli.fixtures.appendingPathComponent("cache.json")
        #expect(try cli.run(["cache", "export", "--output", exported.path] + mail).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: exported.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try cli.run(["token", "wipe"] + mail).status == 0)
        let imported = try cli.run(["cache", "import", "--input", exported.path, "--json"] + calendar)
        #expect(try imported.jsonObject()["imported"] as? Int == 6)
        let again = try cli.run(["cache", "export"] + mail)
        #expect(again.standardOutput == (try Data(contentsOf: exported)))
    }

    @Test func concurrentSignInsOfTwoAppsAreBothListed() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["keyring", "start"]).status == 0)
        // Each app launched once before the race, as on a device: two first launches at the same
        // moment race to add MSAL's team-ID probe, and the loser's init fails with
        // errSecDuplicateItem as the SDK's would (MSIDKeychainUtil.m appDefaultAccessGroup).
        #expect(try cli.run(["token", "accounts"] + mail).status == 0)
        #expect(try cli.run(["token", "accounts"] + calendar).status == 0)
        let rounds = 8
        var partial = Set<String>()
        for round in 0..<rounds {
            let users = ["m\(round)@contoso.com", "c\(round)@contoso.com"]
            let results = try cli.runConcurrently([
                ["token", "signin", "--user", users[0]] + mail,
                ["token", "signin", "--user", users[1]] + calendar,
            ])
            #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.standardError))")
            // The first two sign-ins of the client may race on its app metadata: the loser's
            // save ends there (MSAL's saveData: one update, one add), its token still returned.
            for (user, result) in zip(users, results) where result.standardError.contains("saving the tokens failed") {
                #expect(result.standardError.contains("errSecDuplicateItem (-25299)"), "\(result.standardError)")
                partial.insert(user)
            }
        }
        let listed = try #require(try cli.run(["token", "accounts", "--json"] + mail).json() as? [[String: Any]])
        let names = Set(listed.compactMap { $0["username"] as? String })
        #expect(names.count == 2 * rounds - partial.count)
        #expect(names.contains("m7@contoso.com") && names.contains("c7@contoso.com"))
    }
}
