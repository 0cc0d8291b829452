import Foundation
import Testing

/// The README's tour, as separate processes on one private keyring.
@Suite("End to end: the CLI as separate processes")
struct SharedGroupTourTests {
    let team = "ABCDE12345"
    let group = "ABCDE12345.com.microsoft.adalcache"

    func apps(_ cli: CLI) throws -> (a: [String], b: [String], c: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let lonely = try cli.entitlements("lonely", groups: ["$(AppIdentifierPrefix)com.contoso.notes"])
        return (
            ["--app", "com.contoso.mail", "--team", team, "--entitlements", shared],
            ["--app", "com.contoso.calendar", "--team", team, "--entitlements", shared],
            ["--app", "com.contoso.notes", "--team", team, "--entitlements", lonely]
        )
    }

    @Test func siblingsShareAGroupAndAStrangerIsRefused() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, b, c) = try apps(cli)

        let added = try cli.run(["item", "add", "--account", "alice", "--service", "refreshtoken-client--", "--data", "rt-secret"] + a)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.output.contains(group))

        let read = try cli.run(["item", "get", "--account", "alice"] + b)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.output == "rt-secret")

        let refused = try cli.run(["item", "get", "--account", "alice", "--group", group, "--json"] + c)
        #expect(refused.status == 13)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(refused.standardError.utf8)) as? [String: [String: Any]])
        #expect(error["error"]?["status"] as? Int == -34018)
        #expect(error["error"]?["name"] as? String == "errSecMissingEntitlement")
        #expect((error["error"]?["message"] as? String)?.contains(group) == true)

        // Without naming the group, the stranger simply finds nothing in its own groups.
        let notFound = try cli.run(["item", "get", "--account", "alice"] + c)
        #expect(notFound.status == 11)
        #expect(notFound.standardError.contains("errSecItemNotFound (-25300)"))
    }

    @Test func jsonOutputCarriesAttributesAndDataOnlyWhereAsked() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, b, _) = try apps(cli)
        let binary = Data([0, 1, 2, 255, 10])
        #expect(try cli.run(["item", "add", "--account", "bob", "--service", "s", "--type", "2002", "--generic", "refreshtoken-c-", "--stdin"] + a, input: binary).status == 0)
        #expect(try cli.run(["item", "add", "--account", "carol", "--service", "s", "--data", "c"] + a).status == 0)

        let one = try cli.run(["item", "get", "--account", "bob", "--json"] + b).jsonObject()
        #expect(one["group"] as? String == group)
        #expect(one["type"] as? Int == 2002)
        #expect(one["generic"] as? String == "refreshtoken-c-")
        #expect(one["creator"] == nil)
        #expect((one["emulatorProvenance"] as? [String: Any])?["addedBy"] as? String == "com.contoso.mail")
        #expect(one["dataBase64"] as? String == binary.base64EncodedString())

        let all = try #require(try cli.run(["item", "get", "--service", "s", "--all", "--json"] + b).json() as? [[String: Any]])
        #expect(all.map { $0["account"] as? String } == ["bob", "carol"])

        let list = try cli.run(["item", "list", "--json"] + b)
        let listed = try #require(try list.json() as? [[String: Any]])
        #expect(listed.count == 2)
        #expect(listed.allSatisfy { $0["data"] == nil && $0["dataBase64"] == nil })
        #expect(!list.output.contains("\"data"))

        let raw = try cli.run(["item", "get", "--account", "bob"] + b)
        #expect(raw.standardOutput == binary)
    }

    @Test func statusesMapToDistinctExitCodes() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, _, _) = try apps(cli)
        #expect(try cli.run(["item", "add", "--account", "x", "--service", "s", "--data", "1"] + a).status == 0)
        let duplicate = try cli.run(["item", "add", "--account", "x", "--service", "s", "--data", "2"] + a)
        #expect(duplicate.status == 12)
        #expect(duplicate.standardError.contains("errSecDuplicateItem (-25299)"))

        let updated = try cli.run(["item", "update", "--account", "x", "--data", "3", "--json"] + a)
        #expect(try updated.jsonObject()["updated"] as? Int == 1)
        #expect(try cli.run(["item", "get", "--account", "x"] + a).output == "3")

        let deleted = try cli.run(["item", "delete", "--account", "x"] + a)
        #expect(deleted.output == "deleted 1 item\n")
        #expect(try cli.run(["item", "delete", "--account", "x"] + a).status == 11)

        let badPlist = cli.fixtures.appendingPathComponent("bad.entitlements")
        try Data("not a plist".utf8).write(to: badPlist)
        let bad = try cli.run(["item", "list", "--app", "com.x.y", "--team", team, "--entitlements", badPlist.path])
        #expect(bad.status == 10)
        #expect(bad.standardError.contains(badPlist.path))

        let badTeam = try cli.run(["item", "list", "--app", "com.x.y", "--team", "nope"])
        #expect(badTeam.status == 10)
        #expect(badTeam.standardError.contains("'nope'"))
    }

    @Test func itemsPersistAcrossInvocationsAndADaemonKill() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, b, _) = try apps(cli)
        #expect(try cli.run(["item", "add", "--account", "alice", "--service", "s", "--data", "survives"] + a).status == 0)

        let status = try cli.run(["keyring", "status", "--json"]).jsonObject()
        #expect(status["running"] as? Bool == true)
        let pid = try #require(status["pid"] as? Int)
        let killed = try runTool("/bin/kill", ["-9", "\(pid)"])
        #expect(killed.status == 0)

        let read = try cli.run(["item", "get", "--account", "alice"] + b)
        #expect(read.status == 0, "\(read.standardError)")
        #expect(read.output == "survives")
        let after = try cli.run(["keyring", "status", "--json"]).jsonObject()
        #expect(after["running"] as? Bool == true)
        #expect(after["pid"] as? Int != pid)
    }

    @Test func secretToolFindsItemsThroughTheBusAddress() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, _, _) = try apps(cli)
        #expect(try cli.run(["item", "add", "--account", "alice", "--service", "interop", "--data", "x"] + a).status == 0)
        let status = try cli.run(["keyring", "status", "--json"]).jsonObject()
        let bus = try #require(status["bus"] as? String)
        let found = try runTool("/usr/bin/secret-tool", ["search", "--all", "access-group", group], environment: ["DBUS_SESSION_BUS_ADDRESS": bus])
        #expect(found.status == 0, "\(found.output)")
        #expect(found.output.contains("attribute.access-group = \(group)"))
        #expect(found.output.contains("attribute.account = alice"))
        #expect(found.output.contains("attribute.service = interop"))
    }

    @Test func keyringStopsAndStartsAgain() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let started = try cli.run(["keyring", "start", "--json"]).jsonObject()
        #expect(started["running"] as? Bool == true)
        #expect((started["bus"] as? String)?.hasPrefix("unix:") == true)
        let again = try cli.run(["keyring", "start", "--json"]).jsonObject()
        #expect(again["pid"] as? Int == started["pid"] as? Int)
        #expect(try cli.run(["keyring", "stop"]).status == 0)
        let stopped = try cli.run(["keyring", "status", "--json"]).jsonObject()
        #expect(stopped["running"] as? Bool == false)
    }

    @Test func memoryKeyringKeepsNothingBetweenProcesses() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (a, _, _) = try apps(cli)
        #expect(try cli.run(["item", "add", "--keyring", "memory", "--account", "m", "--service", "s", "--data", "x"] + a).status == 0)
        #expect(try cli.run(["item", "get", "--keyring", "memory", "--account", "m"] + a).status == 11)
    }
}

@Suite("End to end: app groups")
struct AppGroupCommandTests {
    @Test func anAppGroupIsSharedByItsAppsAndClosedToOthers() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        func entitlements(_ name: String, _ root: [String: Any]) throws -> String {
            let url = cli.fixtures.appendingPathComponent("\(name).entitlements")
            try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0).write(to: url)
            return url.path
        }
        let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", try entitlements("mail", [
            "keychain-access-groups": ["$(AppIdentifierPrefix)com.microsoft.adalcache"],
            "com.apple.security.application-groups": ["group.com.contoso.shared"],
        ])]
        let widget = ["--app", "com.contoso.mail.widget", "--team", "ABCDE12345", "--entitlements", try entitlements("widget", [
            "com.apple.security.application-groups": ["group.com.contoso.shared"],
        ])]
        let notes = ["--app", "com.contoso.notes", "--team", "ABCDE12345"]
        let added = try cli.run(["item", "add", "--account", "a", "--service", "s", "--data", "x", "--group", "group.com.contoso.shared"] + mail)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try cli.run(["item", "get", "--account", "a"] + widget).output == "x")
        let refused = try cli.run(["item", "get", "--account", "a", "--group", "group.com.contoso.shared"] + notes)
        #expect(refused.status == 13)
        #expect(refused.standardError.contains("errSecMissingEntitlement"))
    }
}
