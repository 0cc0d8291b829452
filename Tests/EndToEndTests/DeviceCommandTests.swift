import Foundation
import Testing

/// The device: installed apps act with --app alone, cannot re-declare their identity, and leave
/// their items behind when uninstalled; a suite failing its check installs nothing.
@Suite("End to end: the device and its installed apps", .serialized)
struct DeviceCommandTests {
    func installedSuite(_ cli: CLI) throws -> String {
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        let installed = try cli.run(["device", "install", "--suite", suite])
        #expect(installed.status == 0, "\(installed.standardError)")
        return suite
    }

    @Test func installedAppsActWithTheirBundleIDAlone() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        _ = try installedSuite(cli)
        let apps = try #require(try cli.run(["device", "apps", "--json"]).json() as? [[String: Any]])
        #expect(apps.compactMap { ($0["identity"] as? [String: Any])?["bundleID"] as? String }
            == ["com.contoso.calendar", "com.contoso.mail", "com.contoso.notes"])
        let group = "ABCDE12345.com.microsoft.adalcache"
        #expect(try cli.run(["item", "add", "--app", "com.contoso.mail", "--group", group, "--account", "a", "--service", "s", "--data", "x"]).status == 0)
        #expect(try cli.run(["item", "get", "--app", "com.contoso.calendar", "--account", "a"]).output == "x")
        // MSAL settings come from the installed app too.
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--app", "com.contoso.mail", "--json"])
        #expect(signIn.status == 0, "\(signIn.standardError)")
    }

    @Test func anInstalledAppCannotReDeclareItsIdentity() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        _ = try installedSuite(cli)
        let wider = try cli.entitlements("wider", groups: ["$(AppIdentifierPrefix)com.contoso.secrets"])
        let result = try cli.run(["item", "list", "--app", "com.contoso.notes", "--team", "ABCDE12345", "--entitlements", wider])
        #expect(result.status == 10)
        #expect(result.standardError.contains("cannot be re-declared"))
        let otherTeam = try cli.run(["item", "list", "--app", "com.contoso.notes", "--team", "ZZZZZ12345"])
        #expect(otherTeam.status == 10)
    }

    @Test func uninstallingLeavesTheItemsAndUnknownAppsAreNamed() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = try installedSuite(cli)
        let group = "ABCDE12345.com.microsoft.adalcache"
        #expect(try cli.run(["item", "add", "--app", "com.contoso.notes", "--group", group, "--account", "n", "--service", "s", "--data", "y"]).status == 0)
        #expect(try cli.run(["device", "uninstall", "com.contoso.notes"]).status == 0)
        let gone = try cli.run(["item", "list", "--app", "com.contoso.notes"])
        #expect(gone.status == 10)
        #expect(gone.standardError.contains("com.contoso.notes is not installed"))
        #expect(try cli.run(["item", "get", "--app", "com.contoso.mail", "--account", "n"]).output == "y")
        let unknown = try cli.run(["device", "uninstall", "com.contoso.nope"])
        #expect(unknown.status == 10)
        #expect(unknown.standardError.contains("installed: com.contoso.calendar, com.contoso.mail"))
        // Reinstalling brings it back, its items still there.
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 0)
        #expect(try cli.run(["item", "get", "--app", "com.contoso.notes", "--account", "n"]).output == "y")
    }

    @Test func aSuiteFailingItsCheckInstallsNothing() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite")
        #expect(try cli.run(["suite", "init", "--suite", suite.path]).status == 0)
        let manifest = suite.appendingPathComponent("suite.yaml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        // A second client ID breaks "one client ID per suite".
        let broken = text.replacingOccurrences(of: "bundle_id: com.contoso.calendar\n    team_id: ABCDE12345\n    client_id: 7b1d4a2e",
                                               with: "bundle_id: com.contoso.calendar\n    team_id: ABCDE12345\n    client_id: 00000000")
        #expect(broken != text)
        try broken.write(to: manifest, atomically: true, encoding: .utf8)
        let result = try cli.run(["device", "install", "--suite", suite.path])
        #expect(result.status == 10)
        #expect(result.standardError.contains("fails `suite check`"))
        #expect(result.standardError.contains("nothing was installed"))
        #expect(try (cli.run(["device", "apps", "--json"]).json() as? [Any])?.isEmpty == true)
    }
}

/// snapshot, restore and audit act as an app (its groups only) or as the device owner, are
/// journaled with who did them, and a restore never takes an item's creator from the file.
@Suite("End to end: device-owner operations", .serialized)
struct DeviceOwnerOperationTests {
    let group = "ABCDE12345.com.microsoft.adalcache"

    @Test func withoutAnAppOrAdminTheyAreRefused() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let output = cli.fixtures.appendingPathComponent("snap.json").path
        for arguments in [["snapshot", "--group", group, "--output", output], ["restore", "--input", output], ["audit", "--group", group]] {
            let result = try cli.run(arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.standardError.contains("--admin"), "\(arguments): \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func anAppReachesOnlyItsGroupsAndRestoresUnderItsOwnName() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 0)
        #expect(try cli.run(["item", "add", "--app", "com.contoso.mail", "--group", group, "--account", "a", "--service", "s", "--data", "x"]).status == 0)
        let snapshot = cli.fixtures.appendingPathComponent("snap.json")

        // An ad-hoc app of the team without the group is refused: errSecMissingEntitlement.
        let stranger = try cli.run(["snapshot", "--group", group, "--output", snapshot.path, "--app", "com.contoso.other", "--team", "ABCDE12345"])
        #expect(stranger.status == 13, "\(stranger.standardError)")
        #expect(try cli.run(["snapshot", "--group", group, "--output", snapshot.path, "--app", "com.contoso.mail"]).status == 0)

        // The file says mail added the item; the restore records calendar, who restores it.
        #expect(try cli.run(["item", "delete", "--app", "com.contoso.mail", "--group", group, "--account", "a"]).status == 0)
        let restored = try cli.run(["restore", "--input", snapshot.path, "--app", "com.contoso.calendar", "--json"])
        #expect(restored.status == 0, "\(restored.standardError)")
        let item = try cli.run(["item", "get", "--app", "com.contoso.mail", "--account", "a", "--json"]).jsonObject()
        #expect((item["emulatorProvenance"] as? [String: Any])?["addedBy"] as? String == "com.contoso.calendar")

        // A forged snapshot with an item of another group restores nothing.
        var forged = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: snapshot)) as? [String: Any])
        var items = try #require(forged["items"] as? [[String: Any]])
        items[0]["group"] = "ABCDE12345.com.contoso.secrets"
        forged["items"] = items
        try JSONSerialization.data(withJSONObject: forged).write(to: snapshot)
        let refused = try cli.run(["restore", "--input", snapshot.path, "--admin"])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("not the snapshot's group"), "\(refused.standardError)")

        // The journal names who did what.
        let journal = try #require(try cli.run(["audit", "--group", group, "--admin", "--json"]).jsonObject()["entries"] as? [[String: Any]])
        let done = journal.map { "\($0["app"] as? String ?? "-") \($0["operation"] as? String ?? "-")" }
        #expect(done == ["com.contoso.mail snapshot", "com.contoso.calendar restore"])
    }

    @Test func aLockedDeviceKeepsProtectedItemsOutOfReachEvenForSecretTool() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let app = ["--app", "com.contoso.locked", "--team", "ABCDE12345"]
        let group = "ABCDE12345.com.contoso.locked"
        #expect(try cli.run(["item", "add", "--account", "u", "--service", "s", "--data", "secret-u"] + app).status == 0)
        #expect(try cli.run(["item", "add", "--account", "f", "--service", "s", "--data", "secret-f", "--accessible", "afterFirstUnlock"] + app).status == 0)
        let json = try cli.run(["item", "get", "--account", "f", "--json"] + app).jsonObject()
        #expect(json["accessible"] as? String == "afterFirstUnlock")
        #expect(try cli.run(["device", "status", "--json"]).jsonObject()["locked"] as? Bool == false)

        #expect(try cli.run(["device", "lock"]).status == 0)
        // The lock belongs to the device: every later process sees it.
        #expect(try cli.run(["device", "status", "--json"]).jsonObject()["locked"] as? Bool == true)
        let locked = try cli.run(["item", "get", "--account", "u"] + app)
        #expect(locked.status == 14)
        #expect(locked.standardError.contains("errSecInteractionNotAllowed (-25308)"))
        #expect(locked.standardError.contains("device unlock"))
        #expect(try cli.run(["item", "get", "--account", "f"] + app).output == "secret-f")
        #expect(try cli.run(["item", "add", "--account", "n", "--service", "s", "--data", "x"] + app).status == 14)

        // gnome-keyring itself holds the whenUnlocked item locked.
        let bus = try #require(try cli.run(["keyring", "status", "--json"]).jsonObject()["bus"] as? String)
        let found = try runTool("/usr/bin/secret-tool", ["search", "--all", "access-group", group], environment: ["DBUS_SESSION_BUS_ADDRESS": bus])
        #expect(found.output.contains("secret-f"))
        #expect(!found.output.contains("secret-u"))
        #expect(found.output.contains("attribute.account = u"))

        #expect(try cli.run(["device", "reboot"]).status == 0)
        let rebooted = try cli.run(["item", "get", "--account", "f"] + app)
        #expect(rebooted.status == 14)
        #expect(rebooted.standardError.contains("not been unlocked since it booted"))

        #expect(try cli.run(["device", "unlock"]).status == 0)
        #expect(try cli.run(["item", "get", "--account", "u"] + app).output == "secret-u")
        #expect(try cli.run(["item", "get", "--account", "f"] + app).output == "secret-f")
    }

    @Test func adHocAppsAreMarkedInOutputAndInTheAudit() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 0)
        let group = "ABCDE12345.com.microsoft.adalcache"
        let policy = cli.fixtures.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"\#(group)": {"mitigations": ["audit"]}}}"#.utf8).write(to: policy)
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])

        let installed = try cli.run(["item", "add", "--app", "com.contoso.mail", "--group", group, "--account", "a", "--service", "s", "--data", "x"])
        #expect(installed.status == 0)
        #expect(!installed.standardError.contains("ad-hoc"))
        let adHoc = ["--app", "com.contoso.intruder", "--team", "ABCDE12345", "--entitlements", shared]
        let added = try cli.run(["item", "add", "--group", group, "--account", "b", "--service", "s", "--data", "y"] + adHoc)
        #expect(added.status == 0)
        #expect(added.standardError.contains("com.contoso.intruder is not installed on this device; acting as an ad-hoc app of team ABCDE12345"))

        #expect(try cli.run(["item", "delete", "--group", group, "--account", "b", "--policy", policy.path] + adHoc).status == 0)
        #expect(try cli.run(["item", "delete", "--group", group, "--account", "a", "--policy", policy.path, "--app", "com.contoso.mail"]).status == 0)
        let journal = try #require(try cli.run(["audit", "--group", group, "--admin", "--json"]).jsonObject()["entries"] as? [[String: Any]])
        let deletes = journal.filter { $0["operation"] as? String == "delete" }
        #expect(deletes.map { $0["app"] as? String } == ["com.contoso.intruder", "com.contoso.mail"])
        #expect(deletes.map { $0["adHoc"] as? Bool } == [true, nil])
        let text = try cli.run(["audit", "--group", group, "--admin"]).output
        #expect(text.contains("com.contoso.intruder (ad-hoc)"))
        #expect(!text.contains("com.contoso.mail (ad-hoc)"))
    }
}

@Suite("End to end: item get limits, attribute output and filters")
struct ItemGetOptionsTests {
    @Test func limitAttributesAndFilters() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let app = ["--app", "com.contoso.limits", "--team", "ABCDE12345"]
        for (account, type) in [("a", "1"), ("b", "2"), ("c", "2")] {
            #expect(try cli.run(["item", "add", "--account", account, "--service", "s", "--type", type, "--generic", "g-\(account)", "--data", "secret-\(account)"] + app).status == 0)
        }
        let two = try #require(try cli.run(["item", "get", "--limit", "2", "--json"] + app).json() as? [[String: Any]])
        #expect(two.map { $0["account"] as? String } == ["a", "b"])
        let attributes = try cli.run(["item", "get", "--account", "b", "--attributes"] + app)
        #expect(attributes.status == 0)
        let object = try attributes.jsonObject()
        #expect(object["account"] as? String == "b" && object["type"] as? Int == 2 && object["accessible"] as? String == "whenUnlocked")
        #expect(object["data"] == nil && object["dataBase64"] == nil)
        #expect(!attributes.output.contains("secret-b"))
        let typed = try #require(try cli.run(["item", "get", "--all", "--type", "2", "--json"] + app).json() as? [[String: Any]])
        #expect(typed.map { $0["account"] as? String } == ["b", "c"])
        #expect(try cli.run(["item", "get", "--generic", "g-c"] + app).output == "secret-c")
        #expect(try cli.run(["item", "delete", "--type", "1"] + app).status == 0)
        #expect(try cli.run(["item", "get", "--account", "a"] + app).status == 11)
        let bad = try cli.run(["item", "get", "--limit", "0"] + app)
        #expect(bad.status == 10)
        #expect(bad.standardError.contains("--limit"))
    }
}
