import Foundation
import KeychainTestSupport
import Testing

/// A hostile app's crafted items (issue 27, finding 1), planted with `item add --data-file`:
/// the other apps' commands exit normally, name the unreadable item once on standard error,
/// with what the item's names control escaped, and list everything else.
@Suite("End to end: hostile items are named once and skipped")
struct HostileItemCommandTests {
    @Test func commandsNameTheUnreadableItemOnceAndGoOn() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let common = ["--team", "ABCDE12345", "--entitlements", shared, "--family-id", "1"]
        let mail = ["--app", "com.contoso.mail", "--client-id", "c-mail"] + common
        let calendar = ["--app", "com.contoso.calendar", "--client-id", "c-calendar"] + common
        let hostile = ["--app", "com.fabrikam.hostile", "--team", "ABCDE12345", "--entitlements", shared]
        let group = "ABCDE12345.com.microsoft.adalcache"
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)

        // A wipe record whose dictionary contains itself, under a service that clears the screen.
        let file = cli.fixtures.appendingPathComponent("wipe.bin")
        try HostileArchive.archive(.selfReference, rootClass: "NSDictionary").write(to: file)
        let planted = try cli.run([
            "item", "add", "--account", "TokenWipe", "--service", "evil\u{1B}[2J\nlast wiped by you", "--generic", "Microsoft.ADAL.WipeAll.1",
            "--group", group, "--data-file", file.path,
        ] + hostile)
        #expect(planted.status == 0, "\(planted.standardError)")

        // With --json the warning is one JSON object, the service JSON-escaped.
        let json = try cli.run(["token", "wipe-info", "--json"] + calendar)
        let line = try #require(json.standardError.split(separator: "\n").first { $0.contains("skipped") })
        let warning = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(warning["account"] == "TokenWipe")
        #expect(warning["service"] == "evil\u{1B}[2J\nlast wiped by you")
        #expect(warning["reason"] == "the archive's objects refer to themselves in a cycle")
        for command in [["token", "wipe-info"], ["cache", "export"], ["token", "remove", "--account", "alice@contoso.com"]] {
            let result = try cli.run(command + calendar)
            #expect(result.status == 0, "\(command): \(result.standardError)")
            let warnings = result.standardError.split(separator: "\n").filter { $0.hasPrefix("warning: skipped") }
            #expect(warnings == [
                "warning: skipped the unreadable item account 'TokenWipe' service 'evil\\e[2J\\nlast wiped by you' in \(group): the archive's objects refer to themselves in a cycle",
            ], "\(command): \(result.standardError)")
            #expect(!result.standardError.contains("\u{1B}"))
        }
        // Mail still lists Alice.
        let accounts = try cli.run(["token", "accounts", "--json"] + mail)
        #expect(try accounts.jsonArray().map { $0["username"] as? String } == ["alice@contoso.com"])
    }
}
