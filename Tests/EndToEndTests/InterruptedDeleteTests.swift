import Foundation
import Testing

/// Deletions killed half-way, as real processes: the intent is journaled before the delete, so
/// a later command reports the interrupted delete with what it removed and what remains.
@Suite("End to end: deletes killed half-way are never unrecorded", .serialized)
struct InterruptedDeleteTests {
    let group = "ABCDE12345.com.microsoft.adalcache"
    let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    /// The two apps' identity options; `tokens: true` adds the MSAL options token commands take.
    func apps(_ cli: CLI, tokens: Bool = true) throws -> (mail: [String], calendar: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let common = ["--team", "ABCDE12345", "--entitlements", shared] + (tokens ? ["--client-id", clientID, "--family-id", "1"] : [])
        return (["--app", "com.contoso.mail"] + common, ["--app", "com.contoso.calendar"] + common)
    }

    /// Starts `arguments`, waits until the process stops itself at `point`, and kills it with
    /// SIGKILL there, as a crash would.
    func kill(_ cli: CLI, _ arguments: [String], at point: String) throws {
        let running = try cli.start(arguments, environment: ["SHARED_KEYCHAIN_STOP_AT": point])
        let seen = running.waitForStandardError(containing: "stopped at \(point)")
        #expect(seen.contains("stopped at \(point)"), "the process never reached \(point): \(seen)")
        Foundation.kill(running.process.processIdentifier, SIGKILL)
        running.process.waitUntilExit()
        #expect(running.process.terminationReason == .uncaughtSignal)
    }

    /// What a sign-in leaves in the shared group: its 7 items (account, access, ID, family and
    /// client refresh tokens, app metadata, account metadata) and MSAL's team-ID probe, which
    /// the first app's first token command added there, its first access group.
    static let signedInGroupItems = 7 + 1

    func interrupted(_ json: [String: Any]) throws -> [[String: Any]] {
        try #require(json["interrupted"] as? [[String: Any]])
    }

    @Test("token wipe killed after its delete: the intent names the app and the items removed")
    func wipeKilledAfterTheDelete() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        try kill(cli, ["token", "wipe"] + calendar, at: "after-delete")

        let info = try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()
        // Killed before the wipe record: without the intent this wipe would be unrecorded.
        #expect(info["bundleId"] == nil || info["bundleId"] is NSNull)
        let deletions = try interrupted(info)
        #expect(deletions.count == 1)
        let intent = try #require(deletions.first?["intent"] as? [String: Any])
        #expect(intent["app"] as? String == "com.contoso.calendar")
        #expect(intent["operation"] as? String == "token wipe")
        #expect((deletions.first?["removed"] as? [Any])?.count == Self.signedInGroupItems)
        #expect((deletions.first?["remaining"] as? [Any])?.isEmpty == true)
        let text = try cli.run(["token", "wipe-info"] + mail).output
        #expect(text.contains("interrupted token wipe by com.contoso.calendar"))
        #expect(text.contains("\(Self.signedInGroupItems) of \(Self.signedInGroupItems) items removed, 0 remain"))
    }

    @Test("token wipe killed before its delete: nothing removed, every item remains, and it says so")
    func wipeKilledBeforeTheDelete() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        try kill(cli, ["token", "wipe"] + calendar, at: "after-intent")

        let deletions = try interrupted(try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject())
        #expect(deletions.count == 1)
        #expect((deletions.first?["removed"] as? [Any])?.isEmpty == true)
        #expect((deletions.first?["remaining"] as? [Any])?.count == Self.signedInGroupItems)
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 0)
    }

    @Test("an audited bulk delete killed after deleting is reported by audit, and can be acknowledged")
    func auditedDeleteKilledAfterTheDelete() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli, tokens: false)
        let policy = cli.fixtures.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"\#(group)": {"mitigations": ["audit"]}}}"#.utf8).write(to: policy)
        for index in 0..<20 {
            #expect(try cli.run(["item", "add", "--account", "a\(index)", "--service", "s", "--data", "x"] + mail).status == 0)
        }
        try kill(cli, ["item", "delete", "--group", group, "--all", "--policy", policy.path] + calendar, at: "after-delete")

        let audit = try cli.run(["audit", "--group", group, "--json", "--admin"]).jsonObject()
        #expect((audit["entries"] as? [Any])?.isEmpty == true, "the outcome was never written")
        let deletions = try interrupted(audit)
        #expect(deletions.count == 1)
        #expect((deletions.first?["removed"] as? [Any])?.count == 20)
        let intent = try #require(deletions.first?["intent"] as? [String: Any])
        #expect(intent["app"] as? String == "com.contoso.calendar")

        let acknowledged = try cli.run(["audit", "--group", group, "--acknowledge-interrupted", "--admin"])
        #expect(acknowledged.output.contains("interrupted delete by com.contoso.calendar"))
        #expect(acknowledged.output.contains("20 of 20 items removed, 0 remain"))
        #expect(try interrupted(try cli.run(["audit", "--group", group, "--json", "--admin"]).jsonObject()).isEmpty)
    }

    @Test("a finished wipe leaves no intent behind")
    func finishedWipeLeavesNoIntent() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        #expect(try cli.run(["token", "wipe"] + calendar).status == 0)
        let info = try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()
        // A full wipe deletes the wipe record with the group (clearCacheForAllAccountsWithContext).
        #expect(info["bundleId"] == nil || info["bundleId"] is NSNull)
        #expect(try interrupted(info).isEmpty)
    }

    /// Issue 21: on a device a full wipe leaves no trace of who made it; the emulator keeps its
    /// own record of finished deletions, outside the group, and labels it as its own.
    @Test("after a full wipe the device shows no record; the emulator's record names the app that wiped")
    func finishedWipeIsInTheEmulatorsRecord() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let before = try cli.run(["item", "list", "--json"] + (try apps(cli, tokens: false).mail)).jsonArray().count
        #expect(try cli.run(["token", "wipe"] + calendar).status == 0)
        // The record is not in the group: the group is empty, as on a device. (Mail's next token
        // command writes MSAL's team-ID probe there again, as its next launch would.)
        #expect(try cli.run(["item", "list", "--json"] + (try apps(cli, tokens: false).mail)).jsonArray().isEmpty)

        let info = try cli.run(["token", "wipe-info", "--json"] + mail).jsonObject()
        #expect(info["bundleId"] == nil || info["bundleId"] is NSNull)
        let record = try #require(info["emulatorRecord"] as? [String: Any])
        #expect(record["note"] as? String == "recorded by the emulator; a device keeps none")
        let deletions = try #require(record["deletions"] as? [[String: Any]])
        let last = try #require(deletions.last)
        #expect(last["app"] as? String == "com.contoso.calendar")
        #expect(last["operation"] as? String == "token wipe")
        #expect(last["deleted"] as? Int == before)

        let text = try cli.run(["token", "wipe-info"] + mail).output
        #expect(text.contains("on the device: no wipe record"))
        #expect(text.contains("recorded by the emulator; a device keeps none"))
        #expect(text.contains("com.contoso.calendar token wipe: \(before) items deleted"))
    }

    /// Issue 19: a killed `cache import` of 50,000 tokens left the group partly written. An
    /// import is all or nothing: killed half-way, the next command that opens the group's
    /// token cache puts it back as it was, and says so.
    @Test("cache import killed half-way: the next command rolls the group back to before it")
    func importKilledHalfWayIsRolledBack() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar) = try apps(cli)
        // An input of several users, written by the same tool elsewhere.
        let source = try CLI()
        defer { source.tearDown() }
        let (sourceMail, _) = try apps(source)
        for user in ["bob", "carol", "dave", "erin"] {
            #expect(try source.run(["token", "signin", "--user", "\(user)@contoso.com"] + sourceMail).status == 0)
        }
        let input = source.fixtures.appendingPathComponent("input.json")
        #expect(try source.run(["cache", "export", "--output", input.path] + sourceMail).status == 0)

        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let before = try cli.run(["cache", "export"] + mail)
        let itemsBefore = try cli.run(["item", "list", "--json", "--group", group] + mail).output

        try kill(cli, ["cache", "import", "--input", input.path] + calendar, at: "import-midway")
        let after = try cli.run(["cache", "export"] + mail)
        #expect(after.status == 0, "\(after.standardError)")
        #expect(after.standardError.contains("rolled back a cache import by com.contoso.calendar"), "\(after.standardError)")
        #expect(after.standardOutput == before.standardOutput)
        #expect(try cli.run(["item", "list", "--json", "--group", group] + mail).output == itemsBefore)
        // Said once: the undo record is gone.
        #expect(!(try cli.run(["token", "accounts"] + mail).standardError.contains("rolled back")))

        // Run again to the end, the import writes every item and shows its progress.
        let imported = try cli.run(["cache", "import", "--input", input.path] + calendar, environment: ["SHARED_KEYCHAIN_PROGRESS_AFTER": "0"])
        #expect(imported.status == 0, "\(imported.standardError)")
        #expect(imported.standardError.contains("cache import: "), "\(imported.standardError)")
        let accounts = try cli.run(["token", "accounts", "--json"] + mail).output
        for user in ["alice", "bob", "carol", "dave", "erin"] { #expect(accounts.contains("\(user)@contoso.com")) }
    }
}
