import Foundation
import Testing

/// Issue 30, point 1: a signed app's entitlement dump, pasted as it is, installs, and its keychain
/// calls fail as the device's did (microsoft-authentication-library-for-objc #1591 and #1499).
@Suite("End to end: a signed app's entitlement dump installs and fails as on the device", .serialized)
struct SignedEntitlementsTests {
    static let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    /// `codesign -d --entitlements :-` of a build re-signed by a distribution service: its
    /// keychain group became `TEAM.*` (#1591).
    static let resignedDump = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>application-identifier</key>
            <string>B6N6VT45UJ.com.xamarin.xtcapp9</string>
            <key>com.apple.developer.team-identifier</key>
            <string>B6N6VT45UJ</string>
            <key>com.apple.security.application-groups</key>
            <array>
                <string>group.com.xamarin.xtcapp9.group1</string>
            </array>
            <key>get-task-allow</key>
            <false/>
            <key>keychain-access-groups</key>
            <array>
                <string>B6N6VT45UJ.*</string>
            </array>
        </dict>
        </plist>

        """

    /// An app signed without entitlements (#1499): an empty dictionary.
    static let emptyDump = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict/></plist>

        """

    func manifest(_ cli: CLI, bundleID: String, dump: String) throws -> String {
        try Data(dump.utf8).write(to: cli.fixtures.appendingPathComponent("\(bundleID).entitlements"))
        let url = cli.fixtures.appendingPathComponent("\(bundleID).yaml")
        try Data("""
            apps:
              - bundle_id: \(bundleID)
                team_id: B6N6VT45UJ
                client_id: \(Self.clientID)
                redirect_uri: msauth.\(bundleID)://auth
                entitlements: \(bundleID).entitlements
                info_plist:
                  CFBundleURLTypes:
                    - CFBundleURLSchemes: [msauth.\(bundleID)]

            """.utf8).write(to: url)
        return url.path
    }

    @Test func aWildcardDumpInstallsAndMSALsCallNamesTheGroupAsTheDeviceDid() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = try manifest(cli, bundleID: "com.xamarin.xtcapp9", dump: Self.resignedDump)
        // `suite check` judges it (MSAL's group is not entitled); the device does not.
        let refused = try cli.run(["device", "install", "--suite", suite])
        #expect(refused.status == 10)
        #expect(refused.standardError.contains("install it as signed with --allow-check-errors"), "\(refused.standardError)")
        let install = try cli.run(["device", "install", "--suite", suite, "--allow-check-errors"])
        #expect(install.status == 0, "\(install.standardError)")
        #expect(install.output.contains("installed com.xamarin.xtcapp9: B6N6VT45UJ.*, B6N6VT45UJ.com.xamarin.xtcapp9, group.com.xamarin.xtcapp9.group1"))
        #expect(install.standardError.contains("warning: installing despite:"))

        // The console line of #1591, its list on one line.
        let deviceLine = #"errSecMissingEntitlement (-34018): Client explicitly specifies access group B6N6VT45UJ.com.microsoft.adalcache but is only entitled for ("B6N6VT45UJ.*", "B6N6VT45UJ.com.xamarin.xtcapp9", "group.com.xamarin.xtcapp9.group1", "com.apple.token")"#
        // As MSAL, the sign-in returns its token and warns that the cache write failed...
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--app", "com.xamarin.xtcapp9"])
        #expect(signIn.status == 0, "\(signIn.standardError)")
        #expect(signIn.standardError.contains("errSecMissingEntitlement (-34018)"), "\(signIn.standardError)")
        #expect(signIn.standardError.contains(deviceLine.dropFirst("errSecMissingEntitlement (-34018): ".count)), "\(signIn.standardError)")
        // ...and the next call, which must read the cache, fails with it.
        let silent = try cli.run(["token", "acquire", "--silent", "--account", "alice@contoso.com", "--app", "com.xamarin.xtcapp9"])
        #expect(silent.status == 13, "\(silent.standardError)")
        #expect(silent.standardError.contains(deviceLine), "\(silent.standardError)")
        // An add without a group goes to the first entry, the wildcard, literally.
        let add = try cli.run(["item", "add", "--app", "com.xamarin.xtcapp9", "--account", "a", "--service", "s", "--data", "x", "--json"])
        #expect(add.status == 0, "\(add.standardError)")
        #expect(try add.jsonObject()["group"] as? String == "B6N6VT45UJ.*")
    }

    @Test func anAppSignedWithoutEntitlementsInstallsAndEveryCallIsMissingEntitlement() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = try manifest(cli, bundleID: "com.contoso.unsigned", dump: Self.emptyDump)
        let install = try cli.run(["device", "install", "--suite", suite, "--allow-check-errors"])
        #expect(install.status == 0, "\(install.standardError)")
        #expect(install.output.contains("installed com.contoso.unsigned: no keychain entitlement"))
        let deviceLine = "errSecMissingEntitlement (-34018): Client has neither application-identifier nor keychain-access-groups entitlements"
        for arguments in [["item", "add", "--account", "a", "--service", "s", "--data", "x"], ["item", "list"], ["token", "accounts"]] {
            let result = try cli.run(arguments + ["--app", "com.contoso.unsigned"])
            #expect(result.status == 13, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains(deviceLine), "\(arguments): \(result.standardError)")
        }
        // A sign-in fails before the server is asked: the team-ID probe is a keychain call too.
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--app", "com.contoso.unsigned"])
        #expect(signIn.status == 13, "\(signIn.standardError)")
        #expect(signIn.standardError.contains(deviceLine), "\(signIn.standardError)")
    }
}
