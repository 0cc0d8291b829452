import Foundation
import Testing

/// Issue 27, finding 7: an installed app keeps every setting its manifest gives it (SDK, client
/// ID, family, broker, cache group, ...), so a later command naming only its bundle ID acts as
/// the manifest says; the device's registry of an older version still loads, and a damaged or
/// hostile one is an error naming the file, never a crash.
@Suite("End to end: an installed app keeps its manifest's settings", .serialized)
struct InstalledAppSettingsTests {
    static let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    /// Legacy Mail on ADAL in its own cache group and family 1; Calendar on MSAL.
    func manifest(_ cli: CLI) throws -> String {
        let url = cli.fixtures.appendingPathComponent("suite.yaml")
        try Data("""
            apps:
              - bundle_id: com.contoso.legacymail
                team_id: ABCDE12345
                client_id: \(Self.clientID)
                redirect_uri: x-msauth-legacymail://com.contoso.legacymail
                keychain_group: com.contoso.legacycache
                family_id: "1"
                sdk: adal
                entitlements: [$(AppIdentifierPrefix)com.contoso.legacymail, $(AppIdentifierPrefix)com.contoso.legacycache]
                info_plist:
                  CFBundleURLTypes:
                    - CFBundleURLSchemes: [x-msauth-legacymail]
              - bundle_id: com.contoso.calendar
                team_id: ABCDE12345
                client_id: \(Self.clientID)
                redirect_uri: msauth.com.contoso.calendar://auth
                keychain_group: com.contoso.legacycache
                family_id: "1"
                entitlements: [$(AppIdentifierPrefix)com.contoso.calendar, $(AppIdentifierPrefix)com.contoso.legacycache]
                info_plist:
                  CFBundleURLTypes:
                    - CFBundleURLSchemes: [msauth.com.contoso.calendar]

            """.utf8).write(to: url)
        return url.path
    }

    func legacyItems(_ cli: CLI, app: String) throws -> [[String: Any]] {
        let listed = try #require(try cli.run(["item", "list", "--json", "--app", app]).json() as? [[String: Any]])
        return listed.filter { $0["generic"] as? String == "MSOpenTech.ADAL.1" }
    }

    @Test func anInstalledADALAppSignsInAsADALInAnotherProcess() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let install = try cli.run(["device", "install", "--suite", try manifest(cli)])
        #expect(install.status == 0, "\(install.standardError)")
        // A later process names the app alone: the device knows its SDK, client ID, family and group.
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--app", "com.contoso.legacymail", "--json"])
        #expect(signIn.status == 0, "\(signIn.standardError)")
        let legacy = try legacyItems(cli, app: "com.contoso.legacymail")
        #expect(legacy.count == 3)
        #expect(legacy.allSatisfy { $0["group"] as? String == "ABCDE12345.com.contoso.legacycache" })
        // The MSAL app of the same group, also by bundle ID alone, gets alice without a prompt.
        let sso = try cli.run(["token", "acquire", "--silent", "--account", "alice@contoso.com", "--app", "com.contoso.calendar", "--json"])
        #expect(sso.status == 0, "\(sso.standardError)")
        // What the device keeps is shown.
        let apps = try #require(try cli.run(["device", "apps", "--json"]).json() as? [[String: Any]])
        let entry = try #require(apps.first { ($0["identity"] as? [String: Any])?["bundleID"] as? String == "com.contoso.legacymail" })
        #expect(entry["sdk"] as? String == "adal")
        #expect(entry["redirectURI"] as? String == "x-msauth-legacymail://com.contoso.legacymail")
        #expect(entry["usesBroker"] as? Bool == false)
        #expect(entry["sharingGroup"] as? String == "com.contoso.legacycache")
    }

    @Test func aRegistryOfAnOlderVersionLoadsAndADamagedOneIsNamed() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        #expect(try cli.run(["device", "install", "--suite", try manifest(cli)]).status == 0)
        let registry = cli.stateDirectory.appendingPathComponent("device/apps.json")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: registry)) as? [[String: Any]])
        // As an older version wrote it: none of the settings it did not keep.
        let kept: Set<String> = ["identity", "name", "clientID", "familyID", "sharingGroup", "urlSchemes", "queriedSchemes", "manifest", "installedAt"]
        let older = written.map { $0.filter { kept.contains($0.key) } }
        try JSONSerialization.data(withJSONObject: older).write(to: registry)
        let signIn = try cli.run(["token", "signin", "--user", "bob@contoso.com", "--app", "com.contoso.legacymail", "--json"])
        #expect(signIn.status == 0, "\(signIn.standardError)")
        // Without its SDK recorded the app acts as MSAL, as before; reinstalling records it.
        #expect(try legacyItems(cli, app: "com.contoso.legacymail").isEmpty)
        #expect(try cli.run(["device", "apps"]).status == 0)

        let hostile: [(String, Data)] = [
            ("a wrong type", try JSONSerialization.data(withJSONObject: written.map { $0.merging(["sdk": 7]) { $1 } })),
            ("an unknown SDK", try JSONSerialization.data(withJSONObject: written.map { $0.merging(["sdk": "cobol"]) { $1 } })),
            ("deep nesting", Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)),
            ("not JSON", Data("\u{0}\u{1}{{".utf8)),
        ]
        for (what, data) in hostile {
            try data.write(to: registry)
            let result = try cli.run(["token", "signin", "--user", "carol@contoso.com", "--app", "com.contoso.legacymail"])
            #expect(result.status == 10, "\(what): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains("apps.json"), "\(what)")
        }
    }
}
