import Foundation
import KeychainTestSupport
import Testing

/// Text another app of the group wrote, as the commands print it (issue 27, finding 2): escape
/// sequences and newlines shown as visible escapes, 4 MB values cut with their length, and the
/// same values exact in `--json`.
@Suite("End to end: hostile text from items reaches no terminal raw")
struct HostileTextOutputTests {
    let team = "ABCDE12345"
    let group = "ABCDE12345.com.microsoft.adalcache"
    let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"
    /// Clears the screen and forges a line that looks like the tool's own.
    static let forging = HostileText.forging
    static let forgingShown = #"eve\e[2J\e[H\nlast wiped by com.contoso.mail"#
    static let huge = String(repeating: "W", count: 4 << 20)

    /// The apps as item commands name them; `tokens` adds what token commands take.
    func apps(_ cli: CLI, tokens: Bool = false) throws -> (mail: [String], calendar: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let common = ["--team", team, "--entitlements", shared] + (tokens ? ["--client-id", clientID, "--family-id", "1"] : [])
        return (["--app", "com.contoso.mail"] + common, ["--app", "com.contoso.calendar"] + common)
    }

    /// No control character (but the output's own newlines), bidi override or line separator.
    func isInert(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            switch scalar.value {
            case 0x0A: true
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: false
            default: true
            }
        }
    }

    /// A wipe record as the SDK archives it, naming `bundleID`.
    func wipeRecord(_ bundleID: String, in cli: CLI) throws -> String {
        let record = NSDictionary(dictionary: ["bundleId": NSString(string: bundleID), "wipeTime": NSDate(timeIntervalSince1970: 1_700_000_000)])
        let url = cli.fixtures.appendingPathComponent("wipe-\(UUID().uuidString.prefix(8))")
        try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true).write(to: url)
        return url.path
    }

    @Test func itemListAddAndErrorsEscapeAnotherAppsAccount() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        let item = ["item", "add", "--account", Self.forging, "--service", "rt\u{202E}", "--label", Self.forging, "--data", "x"]
        let added = try cli.run(item + calendar)
        #expect(added.status == 0, "\(added.standardError)")
        #expect(isInert(added.output) && added.output.contains(Self.forgingShown), "\(added.output)")

        let listed = try cli.run(["item", "list"] + mail)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(isInert(listed.output), "\(listed.output)")
        #expect(listed.output.contains(Self.forgingShown) && listed.output.contains(#"rt\u{202E}"#))
        #expect(!listed.output.split(separator: "\n").contains { $0.hasPrefix("last wiped by") }, "a forged line")
        let json = try cli.run(["item", "list", "--json"] + mail).jsonArray()
        #expect(json.first?["account"] as? String == Self.forging)
        #expect(json.first?["service"] as? String == "rt\u{202E}")
        #expect(json.first?["label"] as? String == Self.forging)

        // The same key again: the error quotes it escaped in text, and JSON errors stay JSON.
        let duplicate = try cli.run(item + calendar)
        #expect(duplicate.status == 12)
        #expect(isInert(duplicate.standardError) && duplicate.standardError.contains(Self.forgingShown), "\(duplicate.standardError)")
        #expect(!duplicate.standardError.split(separator: "\n").contains { $0.hasPrefix("last wiped by") }, "a forged line")
        let duplicateJSON = try cli.run(item + ["--json"] + calendar)
        let error = try JSONSerialization.jsonObject(with: Data(duplicateJSON.standardError.utf8)) as? [String: [String: Any]]
        #expect(error?["error"]?["name"] as? String == "errSecDuplicateItem")
        let missing = try cli.run(["item", "get", "--account", Self.forging, "--service", "none"] + mail)
        #expect(missing.status == 11)
        #expect(isInert(missing.standardError) && missing.standardError.contains(Self.forgingShown), "\(missing.standardError)")
    }

    @Test func wipeInfoShowsOneLineForAHostileRecordAndTheJSONExact() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (_, calendar) = try apps(cli)
        let (mail, _) = try apps(cli, tokens: true)
        let record = ["--account", "TokenWipe", "--service", "", "--group", group]
        let planted = try cli.run(["item", "add", "--generic", "Microsoft.ADAL.WipeAll.1", "--data-file", try wipeRecord(Self.forging, in: cli)] + record + calendar)
        #expect(planted.status == 0, "\(planted.standardError)")

        let info = try cli.run(["token", "wipe-info"] + mail)
        #expect(info.status == 0, "\(info.standardError)")
        #expect(isInert(info.output), "\(info.output)")
        #expect(info.output.split(separator: "\n").count { $0.hasPrefix("on the device:") } == 1)
        #expect(!info.output.split(separator: "\n").contains { $0.hasPrefix("last wiped by") }, "a forged line: \(info.output)")
        #expect(info.output.contains(Self.forgingShown))
        #expect(try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()["bundleId"] as? String == Self.forging)

        // A 4 MB bundle ID: cut, with its length, in text; whole in JSON.
        let replaced = try cli.run(["item", "update", "--data-file", try wipeRecord(Self.huge, in: cli)] + record + calendar)
        #expect(replaced.status == 0, "\(replaced.standardError)")
        let huge = try cli.run(["token", "wipe-info"] + mail)
        #expect(huge.status == 0, "\(huge.standardError)")
        #expect(huge.output.count < 1000)
        #expect(huge.output.contains("…(4194304 chars)"))
        #expect(try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()["bundleId"] as? String == Self.huge)
    }

    @Test func signInAccountsAndCacheExportShowAHostileUsername() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli, tokens: true)
        let signIn = try cli.run(["token", "signin", "--user", Self.forging] + calendar)
        #expect(signIn.status == 0, "\(signIn.standardError)")
        #expect(isInert(signIn.output) && signIn.output.contains(Self.forgingShown), "\(signIn.output)")

        let accounts = try cli.run(["token", "accounts"] + mail)
        #expect(accounts.status == 0, "\(accounts.standardError)")
        #expect(isInert(accounts.output) && accounts.output.contains(Self.forgingShown), "\(accounts.output)")
        #expect(accounts.output.split(separator: "\n").count == 3, "header, one account, count: \(accounts.output)")
        let listed = try cli.run(["token", "accounts", "--json"] + mail).jsonArray()
        #expect(listed.map { $0["username"] as? String } == [Self.forging])

        let export = try cli.run(["cache", "export"] + mail)
        #expect(export.status == 0, "\(export.standardError)")
        let cache = try export.jsonObject()
        let exported = (cache["Account"] as? [String: [String: Any]])?.values.map { $0["username"] as? String }
        #expect(exported == [Self.forging])

        // An import naming a hostile entry: the refusal quotes it escaped.
        let input = cli.fixtures.appendingPathComponent("hostile-cache.json")
        try JSONSerialization.data(withJSONObject: ["Account": [Self.forging: ["username": "x"]]]).write(to: input)
        let refused = try cli.run(["cache", "import", "--input", input.path] + mail)
        #expect(refused.status == 10)
        #expect(isInert(refused.standardError) && refused.standardError.contains(#"eve\e[2J"#), "\(refused.standardError)")
    }

    @Test func watchPrintsAHostileEventOnOneEscapedLine() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        let watch = try WatchProcess(cli, ["watch", "--group", group, "--count", "1"] + mail)
        defer { watch.stop() }
        _ = try watch.waitUntilSubscribed()
        #expect(try cli.run(["item", "add", "--account", Self.forging, "--service", "s\u{9B}2J", "--data", "x"] + calendar).status == 0)
        let finished = try watch.waitForExit()
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(isInert(finished.output), "\(finished.output)")
        let lines = finished.output.split(separator: "\n")
        #expect(lines.count == 1, "\(finished.output)")
        let fields = lines.first.map { $0.components(separatedBy: "  ") } ?? []
        #expect(Array(fields.dropFirst()) == ["created", group, #"eve\e[2J\e[H\nlast wiped by com.contoso.mail at 2026-01-01T00:00:00Z"#, #"s\u{9B}2J"#, "com.contoso.calendar"])
    }

    @Test func scenarioTimelineAndVerdictsShowAHostileUsernameEscaped() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/suite").path
        // YAML's double quotes read \e as ESC and \n as a newline.
        let user = #""eve\e[2J\e[H\nlast wiped by com.contoso.mail at 2026-01-01T00:00:00Z""#
        let file = cli.fixtures.appendingPathComponent("hostile.yaml")
        try """
            name: hostile
            suite: \(suite)
            steps:
              - app: com.contoso.mail
                do: token signin
                user: \(user)
              - app: com.contoso.calendar
                do: token accounts
                expect: {count: 1, value: \(user)}
            """.write(to: file, atomically: true, encoding: .utf8)
        let text = try cli.run(["scenario", "run", "--scenario", file.path, "--fresh", "--in-process"])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(isInert(text.output), "\(text.output)")
        #expect(text.output.contains(Self.forgingShown))
        #expect(!text.output.split(separator: "\n").contains { $0.hasPrefix("last wiped by") }, "a forged line")
        let json = try cli.run(["scenario", "run", "--scenario", file.path, "--fresh", "--in-process", "--json"]).jsonObject()
        let timeline = try #require(json["timeline"] as? [[String: Any]])
        #expect(timeline.contains { ($0["outcome"] as? [String: Any])?["value"] as? String == Self.forging })
    }
}
