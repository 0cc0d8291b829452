import Foundation
import Testing

/// ADAL apps as a new user meets them (issue 21's "Done means"): a suite with an ADAL app and
/// an MSAL app shares a sign-in; `item list --json` shows ADAL's legacy items beside MSAL's;
/// Python's `plistlib` opens a legacy item's data as an NSKeyedArchiver archive with the SDK's
/// keys; the MSAL app's `removeAccount` takes the ADAL app's tokens.
@Suite("End to end: an ADAL app and an MSAL app in one suite")
struct ADALAppProcessTests {
    static let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    /// A suite manifest: Legacy Mail on ADAL, Calendar on MSAL, one client ID and family.
    func suite(_ cli: CLI) throws -> String {
        func app(_ bundleID: String, sdk: String) -> String {
            """
              - bundle_id: \(bundleID)
                team_id: ABCDE12345
                client_id: \(Self.clientID)
                redirect_uri: x-msauth-\(bundleID.split(separator: ".").last ?? "")://\(bundleID)
                family_id: "1"
                sdk: \(sdk)
                entitlements: [$(AppIdentifierPrefix)\(bundleID), $(AppIdentifierPrefix)com.microsoft.adalcache]
                info_plist:
                  CFBundleURLTypes:
                    - CFBundleTypeRole: Editor
                      CFBundleURLName: \(bundleID)
                      CFBundleURLSchemes: [x-msauth-\(bundleID.split(separator: ".").last ?? "")]

            """
        }
        let url = cli.fixtures.appendingPathComponent("suite.yaml")
        try Data(("apps:\n" + app("com.contoso.legacymail", sdk: "adal") + app("com.contoso.calendar", sdk: "msal")).utf8).write(to: url)
        return url.path
    }

    @Test func anADALAppAndAnMSALAppShareASignInAndMSALsRemoveTakesADALsTokens() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let manifest = try suite(cli)
        let adal = ["--suite", manifest, "--app", "com.contoso.legacymail"]
        let msal = ["--suite", manifest, "--app", "com.contoso.calendar"]
        #expect(try cli.run(["suite", "check", "--suite", manifest]).status == 0)

        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--json"] + adal)
        #expect(signIn.status == 0, "\(signIn.standardError)")

        // Single sign-on: the MSAL app lists alice and gets a token without a prompt.
        let accounts = try #require(try cli.run(["token", "accounts", "--json"] + msal).json() as? [[String: Any]])
        #expect(accounts.map { $0["username"] as? String } == ["alice@contoso.com"])
        let sso = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent", "--json"] + msal)
        #expect(sso.status == 0, "\(sso.standardError)")
        #expect(try sso.jsonObject()["source"] as? String == "refresh_token")

        // ADAL's legacy items beside MSAL's.
        let listed = try #require(try cli.run(["item", "list", "--json"] + msal).json() as? [[String: Any]])
        let legacy = listed.filter { $0["generic"] as? String == "MSOpenTech.ADAL.1" }
        #expect(legacy.count == 3)
        #expect(legacy.allSatisfy { $0["type"] == nil || $0["type"] is NSNull })
        #expect(legacy.allSatisfy { ($0["service"] as? String)?.hasPrefix("MSOpenTech.ADAL.1|") == true })
        #expect(legacy.allSatisfy { $0["accessible"] as? String == "afterFirstUnlockThisDeviceOnly" })
        #expect(listed.contains { $0["type"] as? Int == 2002 })

        // Python's plistlib reads a legacy item's data as ADAL's keyed archive.
        let service = try #require(legacy.first { ($0["service"] as? String)?.contains("CC3513A0-0E69-4B4D-97FC-DFB6C91EE132") == true }?["service"] as? String)
        let item = try cli.run(["item", "get", "--service", service, "--json"] + msal).jsonObject()
        let data = try #require((item["dataBase64"] as? String).flatMap { Data(base64Encoded: $0) })
        let archive = cli.fixtures.appendingPathComponent("legacy.plist")
        try data.write(to: archive)
        let decoded = try Self.python("""
            import json, plistlib, sys
            p = plistlib.loads(open(sys.argv[1], 'rb').read())
            objects = p['$objects']
            root = objects[p['$top']['root'].data]
            info = objects[root['userInformation'].data]
            name = lambda o: objects[o['$class'].data]['$classname']
            print(json.dumps({'archiver': p['$archiver'], 'class': name(root), 'keys': sorted(k for k in root if k != '$class'),
                              'userInformation': name(info), 'userKeys': sorted(k for k in info if k != '$class'),
                              'clientId': objects[root['clientId'].data], 'familyId': objects[root['familyId'].data]}))
            """, archive.path)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(decoded.utf8)) as? [String: Any])
        #expect(summary["archiver"] as? String == "NSKeyedArchiver")
        #expect(summary["class"] as? String == "ADTokenCacheStoreItem")
        #expect(summary["userInformation"] as? String == "ADUserInformation")
        #expect(Set(summary["keys"] as? [String] ?? []).isSuperset(of: [
            "authority", "accessToken", "refreshToken", "userInformation", "accessTokenType", "clientId", "resource",
            "familyId", "expiresOn", "cachedAt", "additionalClient", "additionalServer", "homeAccountId",
        ]))
        #expect(Set(summary["userKeys"] as? [String] ?? []) == ["rawIdToken", "allClaims", "userId", "userIdDisplayable"])
        #expect(summary["familyId"] as? String == "1")

        // The MSAL app's removeAccount takes the ADAL app's tokens; only the family copy stays.
        #expect(try cli.run(["token", "remove", "--account", "alice@contoso.com"] + msal).status == 0)
        let after = try #require(try cli.run(["item", "list", "--json"] + msal).json() as? [[String: Any]])
        let remaining = after.filter { $0["generic"] as? String == "MSOpenTech.ADAL.1" }.compactMap { $0["service"] as? String }
        #expect(remaining.count == 1)
        #expect(remaining.first?.hasSuffix("|" + Data("foci-1".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")) == true)

        // MSAL's JSON leaves the legacy item out, and says so.
        let exported = try cli.run(["cache", "export"] + msal)
        #expect(exported.status == 0)
        #expect(exported.standardError.contains("left out 1 ADAL legacy item"))
        #expect(!exported.output.contains("MSOpenTech"))
    }

    /// Runs a Python program with arguments; its standard output.
    static func python(_ program: String, _ arguments: String...) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", program] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}
