import Foundation
import Testing

/// `kSecAttrCreator` and `kSecAttrType` on the command line are the caller's unsigned 32-bit
/// numbers; which app added an item is the emulator's provenance, shown labelled as its record.
@Suite("item commands: creator, type and the emulator's provenance")
struct ProvenanceCommandTests {
    /// Mail and Calendar, ad hoc, sharing one group.
    func apps(_ cli: CLI) throws -> (mail: [String], calendar: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.contoso.shared"])
        return (["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", shared],
                ["--app", "com.contoso.calendar", "--team", "ABCDE12345", "--entitlements", shared])
    }

    @Test func creatorAndTypeAreSetMatchedAndUpdatedAsNumbers() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        let added = try cli.run(["item", "add", "--account", "alice", "--service", "s", "--creator", "4294967295", "--type", "1633776748", "--data", "x"] + mail)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(try cli.run(["item", "add", "--account", "bob", "--service", "s", "--data", "y"] + mail).status == 0)
        let listed = try #require(try cli.run(["item", "list", "--json", "--creator", "4294967295"] + calendar).json() as? [[String: Any]])
        #expect(listed.map { $0["account"] as? String } == ["alice"])
        #expect(listed.first?["creator"] as? Int == 4_294_967_295 && listed.first?["type"] as? Int == 1_633_776_748)
        let bob = try cli.run(["item", "get", "--account", "bob", "--attributes"] + calendar).jsonObject()
        #expect(bob["creator"] == nil && bob["type"] == nil)
        let updated = try cli.run(["item", "update", "--account", "bob", "--new-creator", "7"] + calendar)
        #expect(updated.status == 0, "\(updated.standardError)")
        let after = try #require(try cli.run(["item", "list", "--json", "--creator", "7"] + mail).json() as? [[String: Any]])
        #expect(after.map { $0["account"] as? String } == ["bob"])
        let provenance = try #require(after.first?["emulatorProvenance"] as? [String: Any])
        #expect(provenance["addedBy"] as? String == "com.contoso.mail" && provenance["modifiedBy"] as? String == "com.contoso.calendar")
    }

    @Test func aCreatorOutOfRangeIsRefusedAndWritesNothing() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try apps(cli).mail
        for (option, value) in [("--creator", "4294967296"), ("--type", "4294967296")] {
            let result = try cli.run(["item", "add", "--account", "a", "--service", "s", option, value, "--data", "x"] + mail)
            #expect(result.status == 10, "\(result.standardError)")
            #expect(result.standardError.contains("errSecParam (-50)"), "\(result.standardError)")
            #expect(result.standardError.contains("\(option) must be a whole number from 0 to 4294967295; got \(value)"), "\(result.standardError)")
        }
        let listed = try #require(try cli.run(["item", "list", "--json"] + mail).json() as? [[String: Any]])
        #expect(listed.isEmpty)
    }

    @Test func itemListShowsWhoAddedItLabelledAsTheEmulatorsRecord() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["item", "add", "--account", "alice", "--service", "s", "--data", "x"] + mail).status == 0)
        let text = try cli.run(["item", "list"] + calendar)
        #expect(text.status == 0, "\(text.standardError)")
        let lines = text.output.split(separator: "\n").map(String.init)
        let header = try #require(lines.first)
        #expect(header.contains("ADDED BY (EMULATOR)"))
        let row = try #require(lines.dropFirst().first)
        #expect(row.contains("com.contoso.mail"))
        #expect(lines.contains("ADDED BY (EMULATOR): provenance recorded by the emulator; a device keeps none"))
        let json = try #require(try cli.run(["item", "list", "--json"] + calendar).json() as? [[String: Any]])
        let provenance = try #require(json.first?["emulatorProvenance"] as? [String: Any])
        #expect(provenance["addedBy"] as? String == "com.contoso.mail")
        #expect(provenance["modifiedBy"] == nil)
        #expect(provenance["note"] as? String == "provenance recorded by the emulator; a device keeps none")
        #expect(json.first?["creator"] == nil)
    }
}
