import Foundation
import Testing

/// Intune beside the suite as a user meets it (issue 30, point 2): the per-app example's Mail has
/// the Intune App SDK with `ADALCacheKeychainGroupOverride` naming its own group. `suite check`
/// passes; without the override it reports intune-cache-group, and on the device Intune's read
/// fails as the SDK's would.
@Suite("End to end: Intune beside the suite")
struct IntuneCommandTests {
    static let perApp = BlastRadiusCommandTests.perApp
    static let overrideLine = "        ADALCacheKeychainGroupOverride: com.contoso.mail   # where MSAL keeps Mail's cache\n"

    /// The per-app example without Mail's override, written to the CLI's fixtures.
    static func withoutOverride(_ cli: CLI) throws -> String {
        let text = try String(contentsOfFile: perApp + "/suite.yaml", encoding: .utf8)
        let edited = text.replacingOccurrences(of: overrideLine, with: "")
        #expect(edited != text)
        let manifest = cli.fixtures.appendingPathComponent("suite.yaml")
        try edited.write(to: manifest, atomically: true, encoding: .utf8)
        return manifest.path
    }

    @Test func suiteCheckReportsTheMissingOverrideAndPassesWithIt() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let withOverride = try cli.run(["suite", "check", "--suite", Self.perApp])
        #expect(withOverride.status == 0, "\(withOverride.standardError)")
        #expect(!withOverride.output.contains("intune-cache-group"), "\(withOverride.output)")

        let missing = try cli.run(["suite", "check", "--suite", Self.withoutOverride(cli)])
        #expect(missing.status == 10)
        #expect(missing.output.contains("error    intune-cache-group: the Intune App SDK reads the user's token from ABCDE12345.com.microsoft.adalcache"),
                "\(missing.output)")
        #expect(missing.output.hasSuffix("1 error, 0 warnings\n"), "\(missing.output)")
        let json = try cli.run(["suite", "check", "--suite", Self.withoutOverride(cli), "--json"]).jsonObject()
        let findings = try #require(json["findings"] as? [[String: Any]])
        #expect(findings.map { $0["rule"] as? String } == ["intune-cache-group"])
        #expect(findings.map { $0["app"] as? String } == ["com.contoso.mail"])
    }

    @Test func intuneCheckFindsTheTokenWithTheOverrideAndGetsMissingEntitlementWithout() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = ["--suite", Self.perApp, "--app", "com.contoso.mail"]
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)

        let found = try cli.run(["suite", "intune-check", "--user", "alice@contoso.com"] + mail)
        #expect(found.status == 0, "\(found.standardError)")
        #expect(found.output.contains("reads ABCDE12345.com.contoso.mail (ADALCacheKeychainGroupOverride): found 'alice@contoso.com'"), "\(found.output)")
        let json = try cli.run(["suite", "intune-check", "--user", "alice@contoso.com", "--json"] + mail).jsonObject()
        #expect(json["found"] as? Bool == true)
        #expect(json["group"] as? String == "ABCDE12345.com.contoso.mail")

        let unknownUser = try cli.run(["suite", "intune-check", "--user", "bob@contoso.com"] + mail)
        #expect(unknownUser.status == 11, "\(unknownUser.output)")

        // Mail as installed without the override: Intune reads adalcache, which Mail may not use.
        let misdirected = try cli.run(["suite", "intune-check", "--suite", Self.withoutOverride(cli), "--app", "com.contoso.mail",
                                       "--user", "alice@contoso.com", "--json"])
        #expect(misdirected.status == 13, "\(misdirected.output)\(misdirected.standardError)")
        let answer = try misdirected.jsonObject()
        #expect(answer["code"] as? Int == -34018)
        #expect(answer["group"] as? String == "ABCDE12345.com.microsoft.adalcache")

        let noIntune = try cli.run(["suite", "intune-check", "--suite", Self.perApp, "--app", "com.contoso.notes", "--user", "alice@contoso.com"])
        #expect(noIntune.status == 10)
        #expect(noIntune.standardError.contains("com.contoso.notes has no Intune"), "\(noIntune.standardError)")
    }

    @Test func blastRadiusCountsIntuneEnrolment() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let text = try cli.run(["suite", "blast-radius", "--suite", Self.perApp])
        #expect(text.status == 0)
        #expect(text.output.contains("Contoso Mail (Intune reads ABCDE12345.com.contoso.mail): no other app can delete it"), "\(text.output)")
        let json = try cli.run(["suite", "blast-radius", "--suite", Self.perApp, "--json"]).jsonObject()
        let intune = try #require(json["intune_enrolment"] as? [String: Any])
        #expect((intune["readers"] as? [[String: Any]])?.compactMap { $0["app"] as? String } == ["com.contoso.mail"])
        #expect((intune["exposures"] as? [Any])?.isEmpty == true)
    }
}
