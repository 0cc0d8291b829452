import Foundation
import Testing

@Suite("End to end: hazards and mitigations")
struct MitigationCommandTests {
    let group = "ABCDE12345.com.microsoft.adalcache"

    @Test func guardedWipeIsRefusedAuditedAndASnapshotRestoresAnUnguardedOne() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        let mail = ["--suite", suite, "--app", "com.contoso.mail"]
        let calendar = ["--suite", suite, "--app", "com.contoso.calendar"]
        let policy = cli.fixtures.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"\#(group)": {"mitigations": ["audit", "guarded-delete"], "privileged": ["com.microsoft.azureauthenticator"]}}}"#.utf8)
            .write(to: policy)

        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let snapshot = cli.fixtures.appendingPathComponent("snap.json").path
        #expect(try cli.run(["snapshot", "--group", group, "--output", snapshot, "--admin"]).status == 0)

        let refused = try cli.run(["token", "wipe", "--policy", policy.path, "--json"] + calendar)
        #expect(refused.status == 13)
        #expect(refused.standardError.contains("guarded delete refused com.contoso.calendar"))
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 0)

        let journal = try #require((try cli.run(["audit", "--group", group, "--json", "--admin"]).jsonObject())["entries"] as? [[String: Any]])
        #expect(journal.map { $0["operation"] as? String } == ["snapshot", "delete"])
        #expect(journal.first?["app"] as? String == "device-owner")
        let audit = journal.filter { $0["operation"] as? String == "delete" }
        #expect(audit.count == 1)
        #expect(audit.first?["app"] as? String == "com.contoso.calendar")

        // Without the policy the wipe goes through, as on iOS; the snapshot brings it back.
        #expect(try cli.run(["token", "wipe"] + calendar).status == 0)
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 20)
        #expect(try cli.run(["restore", "--input", snapshot, "--admin"]).status == 0)
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 0)
    }

    @Test func wipeAllHazardShowsLossAndItsMitigation() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let run = try cli.run(["hazard", "run", "wipe-all"])
        #expect(run.status == 0, "\(run.standardError)")
        // Mail's sign-in (7 items) and MSAL's team-ID probe, both in the group Calendar wipes.
        #expect(run.output.contains("com.contoso.mail lost \(7 + 1) items to com.contoso.calendar's wipe"))
        #expect(run.output.contains("SIDE BY SIDE"))
        let unknown = try cli.run(["hazard", "run", "no-such-hazard"])
        #expect(unknown.status != 0)
    }
}
