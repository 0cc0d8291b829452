import Foundation
import Testing

@Suite("item commands: every attribute")
struct ItemCommandTests {
    let app = ["--app", "com.contoso.attributes", "--team", "ABCDE12345"]

    /// Every attribute the library has is set by `item add`, shown by `item get --attributes`,
    /// matched by every command, and changed by `item update --new-*`.
    @Test func everyAttributeRoundTripsAndFilters() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let added = try cli.run([
            "item", "add", "--account", "alice", "--service", "rt", "--generic", "g1", "--type", "2002", "--label", "Refresh token",
            "--comment", "for the suite", "--description", "MSAL token", "--accessible", "afterFirstUnlock", "--synchronizable",
            "--data", "secret-a",
        ] + app)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try cli.run(["item", "add", "--account", "bob", "--service", "rt", "--data", "secret-b"] + app).status == 0)

        let shown = try cli.run(["item", "get", "--account", "alice", "--attributes"] + app)
        let object = try shown.jsonObject()
        #expect(object["label"] as? String == "Refresh token")
        #expect(object["comment"] as? String == "for the suite")
        #expect(object["description"] as? String == "MSAL token")
        #expect(object["generic"] as? String == "g1" && object["type"] as? Int == 2002)
        #expect(object["accessible"] as? String == "afterFirstUnlock")
        #expect(object["synchronizable"] as? Bool == true)
        #expect(object["creator"] == nil)
        #expect((object["emulatorProvenance"] as? [String: Any])?["addedBy"] as? String == "com.contoso.attributes")
        #expect(!shown.output.contains("secret-a"))

        // Each attribute filters get, list and delete.
        for filter in [["--label", "Refresh token"], ["--comment", "for the suite"], ["--description", "MSAL token"],
                       ["--accessible", "afterFirstUnlock"], ["--synchronizable", "true"]] {
            #expect(try cli.run(["item", "get"] + filter + app).output == "secret-a", "\(filter)")
            let listed = try #require(try cli.run(["item", "list", "--json"] + filter + app).json() as? [[String: Any]])
            #expect(listed.map { $0["account"] as? String } == ["alice"], "\(filter)")
        }
        let byAdder = try #require(try cli.run(["item", "list", "--json", "--added-by", "com.contoso.attributes"] + app).json() as? [[String: Any]])
        #expect(byAdder.count == 2)
        #expect(try cli.run(["item", "get", "--label", "nothing"] + app).status == 11)
        #expect(try cli.run(["item", "list", "--limit", "1", "--json"] + app).json() as? [[String: Any]] != nil)
        #expect((try cli.run(["item", "list", "--limit", "1", "--json"] + app).json() as? [[String: Any]])?.count == 1)

        // update sets attributes with --new-*, data or not; the plain names select.
        let updated = try cli.run([
            "item", "update", "--label", "Refresh token", "--new-label", "RT", "--new-comment", "rotated", "--new-description", "token",
            "--new-accessible", "always", "--new-synchronizable", "false", "--new-generic", "g2", "--new-type", "2001",
        ] + app)
        #expect(updated.status == 0, "\(updated.standardError)")
        #expect(updated.output == "updated 1 item\n")
        let after = try cli.run(["item", "get", "--account", "alice", "--json"] + app).jsonObject()
        #expect(after["label"] as? String == "RT" && after["comment"] as? String == "rotated" && after["description"] as? String == "token")
        #expect(after["accessible"] as? String == "always" && after["synchronizable"] as? Bool == false)
        #expect(after["generic"] as? String == "g2" && after["type"] as? Int == 2001)
        #expect(after["data"] as? String == "secret-a")
        #expect(try cli.run(["item", "update", "--account", "alice", "--new-account", "carol"] + app).status == 0)
        #expect(try cli.run(["item", "get", "--account", "carol"] + app).output == "secret-a")

        // Nothing to set is refused, and a filtered delete takes only what matches.
        let nothing = try cli.run(["item", "update", "--account", "carol"] + app)
        #expect(nothing.status == 10)
        #expect(nothing.standardError.contains("--new-label"))
        #expect(try cli.run(["item", "delete", "--comment", "rotated"] + app).output == "deleted 1 item\n")
        #expect(try cli.run(["item", "get", "--account", "bob"] + app).output == "secret-b")
    }

    /// A delete that names no attribute empties every group the app reaches: the CLI asks for
    /// --all first, and --dry-run shows what would go on every delete and wipe.
    @Test func filterlessDeletesNeedAllAndEveryDeleteHasADryRun() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        for account in ["a", "b"] {
            #expect(try cli.run(["item", "add", "--account", account, "--service", "s", "--data", "secret-\(account)"] + app).status == 0)
        }
        let refused = try cli.run(["item", "delete"] + app)
        #expect(refused.status == 10)
        #expect(refused.standardError.contains("--all"))
        #expect(refused.standardError.contains("ABCDE12345.com.contoso.attributes"))
        #expect(try cli.run(["item", "delete", "--group", "ABCDE12345.com.contoso.attributes"] + app).status == 10)

        let dry = try cli.run(["item", "delete", "--all", "--dry-run"] + app)
        #expect(dry.status == 0)
        #expect(dry.output.contains("would delete 2 items"))
        #expect(!dry.output.contains("secret-a"))
        let json = try cli.run(["item", "delete", "--account", "a", "--dry-run", "--json"] + app).jsonObject()
        #expect(((json["dryRun"] as? [String: Any])?["wouldDelete"] as? [[String: Any]])?.map { $0["account"] as? String } == ["a"])
        #expect((try cli.run(["item", "list", "--json"] + app).json() as? [[String: Any]])?.count == 2)

        #expect(try cli.run(["item", "delete", "--all"] + app).output == "deleted 2 items\n")

        // Token removals and wipes too.
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", shared, "--client-id", "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"]
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let wipe = try cli.run(["token", "wipe", "--dry-run"] + mail)
        #expect(wipe.output.contains("would delete"))
        let remove = try cli.run(["token", "remove", "--account", "alice@contoso.com", "--dry-run"] + mail)
        #expect(remove.output.contains("would delete"))
        #expect((try cli.run(["token", "accounts", "--json"] + mail).json() as? [[String: Any]])?.count == 1)
    }

    /// `item list --json` writes item by item (issue 32: a 10,000-item listing is never held
    /// whole), with the bytes of encoding the whole array, which `item get --all --attributes`
    /// still prints: the same items, the same views.
    @Test func listJSONIsTheWholeArraysEncoding() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let empty = try cli.run(["item", "list", "--json"] + app)
        #expect(empty.status == 0, "\(empty.standardError)")
        #expect(empty.output == "[\n\n]\n")
        for (account, generic) in [("alice", "g/1"), ("bob", "line\nbreak")] {
            let added = try cli.run(["item", "add", "--account", account, "--service", "rt", "--generic", generic, "--data", "s"] + app)
            #expect(added.status == 0, "\(added.standardError)")
        }
        let listed = try cli.run(["item", "list", "--json"] + app)
        let whole = try cli.run(["item", "get", "--all", "--attributes", "--json"] + app)
        #expect(listed.status == 0 && whole.status == 0, "\(listed.standardError) \(whole.standardError)")
        #expect(try listed.jsonArray().count == 2)
        #expect(listed.output == whole.output)
    }
}
