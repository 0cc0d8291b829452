import Foundation
import Testing

/// `load` never deletes data it did not write: it runs in a group of its own unless told
/// otherwise, and even then obeys the group's mitigation policy (issue 19).
@Suite("End to end: load leaves other apps' data alone")
struct LoadSafetyTests {
    let group = "ABCDE12345.com.microsoft.adalcache"

    /// Another app's item in the shared group, written as that app would.
    private func writeForeignItem(_ cli: CLI) throws -> [String] {
        let entitlements = try cli.entitlements("mail", groups: [group])
        let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", entitlements]
        let added = try cli.run(["item", "add", "--account", "alice", "--service", "rt", "--data", "mail-token", "--group", group] + mail)
        #expect(added.status == 0, "\(added.standardError)")
        return mail
    }

    private func foreignItemSurvives(_ cli: CLI, _ mail: [String]) throws -> Bool {
        try cli.run(["item", "get", "--account", "alice", "--service", "rt", "--group", group] + mail).output == "mail-token"
    }

    @Test("a wipe mix of either workload leaves the team's shared group alone and cleans up its own group")
    func wipeMixRunsInAGroupOfItsOwn() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try writeForeignItem(cli)
        for workload in ["items", "token"] {
            let load = try cli.run(["load", "--team", "ABCDE12345", "--apps", "1", "--workload", workload, "--mix", "wipe=100",
                                    "--operations", "1", "--warmup", "0", "--items", "2", "--json"])
            #expect(load.status == 0, "\(workload): \(load.standardError)")
            #expect(try foreignItemSurvives(cli, mail), "\(workload): load deleted another app's item")
            let report = try load.jsonObject()
            let configuration = try #require(report["configuration"] as? [String: Any])
            let runGroup = try #require(configuration["group"] as? String)
            #expect(runGroup.hasPrefix("ABCDE12345.sharedkeychain-load."), "\(runGroup)")
            // Nothing of the run is left behind in its own group.
            let checker = ["--app", "com.contoso.checker", "--team", "ABCDE12345",
                           "--entitlements", try cli.entitlements("checker-\(workload)", groups: [runGroup])]
            let listed = try cli.run(["item", "list", "--group", runGroup, "--json"] + checker)
            #expect(listed.status == 0, "\(listed.standardError)")
            #expect((try listed.json() as? [Any])?.isEmpty == true, "\(listed.output)")
        }
    }

    @Test("--group naming a group that holds items is refused without --allow-existing-data: errSecParam, nothing deleted")
    func existingGroupNeedsExplicitConsent() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try writeForeignItem(cli)
        for workload in ["items", "token"] {
            let load = try cli.run(["load", "--group", group, "--apps", "1", "--workload", workload, "--mix", "wipe=100",
                                    "--operations", "1", "--warmup", "0"])
            #expect(load.status == 10, "\(workload): \(load.standardError)")
            #expect(load.standardError.contains("--allow-existing-data"), "\(load.standardError)")
            #expect(load.standardError.contains("1 item"), "\(load.standardError)")
            #expect(try foreignItemSurvives(cli, mail))
        }
    }

    @Test("with --allow-existing-data, load's wipes obey guarded delete and are journaled as refused")
    func existingGroupObeysItsPolicy() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = try writeForeignItem(cli)
        let policy = cli.fixtures.appendingPathComponent("policy.json")
        try Data(#"{"groups": {"\#(group)": {"mitigations": ["audit", "guarded-delete"]}}}"#.utf8).write(to: policy)
        for workload in ["items", "token"] {
            let load = try cli.run(["load", "--group", group, "--allow-existing-data", "--policy", policy.path, "--apps", "1",
                                    "--workload", workload, "--mix", "wipe=100", "--operations", "2", "--warmup", "0", "--json"])
            #expect(load.status == 0, "\(workload): \(load.standardError)")
            #expect(try foreignItemSurvives(cli, mail), "\(workload): load deleted another app's item through guarded delete")
        }
        let audit = try cli.run(["audit", "--group", group, "--admin", "--json"])
        let entries = try #require(try audit.jsonObject()["entries"] as? [[String: Any]])
        let refused = entries.filter { $0["operation"] as? String == "delete" && $0["outcome"] as? String == "refused" }
        #expect(refused.count >= 2, "\(entries)")
        #expect(refused.allSatisfy { $0["app"] as? String == "com.loadtest.app0" })
    }
}
