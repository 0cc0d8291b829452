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
        // Whose items they were is the emulator's provenance, and the audit says so.
        #expect((audit.first?["addedBy"] as? [String: Any]).map { Array($0.keys) } == ["com.contoso.mail"])
        let text = try cli.run(["audit", "--group", group, "--admin"]).output
        #expect(text.contains("ADDED BY (EMULATOR)") && text.contains("com.contoso.mail:"))
        #expect(text.contains("ADDED BY (EMULATOR): provenance recorded by the emulator; a device keeps none"))

        // Without the policy the wipe goes through, as on iOS; the snapshot brings it back.
        #expect(try cli.run(["token", "wipe"] + calendar).status == 0)
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 20)
        #expect(try cli.run(["restore", "--input", snapshot, "--admin"]).status == 0)
        #expect(try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--silent"] + mail).status == 0)
    }

    /// Whole-group operations of a big group say how far they are (issue 32): progress lines on
    /// standard error once they run past 2 s (0 here, through SHARED_KEYCHAIN_PROGRESS_AFTER),
    /// standard output unchanged.
    @Test func restoreSnapshotAndListOfABigGroupShowProgress() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let group = "ABCDE12345.com.example.big"
        let items = (0..<150).map { index in
            """
            {"accessibility": "whenUnlocked", "account": "user\(index)@contoso.com", "creationDate": \(817552881 + index), \
            "data": "c2VjcmV0", "group": "\(group)", "modificationDate": \(817552881 + index), "service": "svc", \
            "synchronizable": false, "version": 1}
            """
        }
        let fill = cli.fixtures.appendingPathComponent("fill.json")
        try Data(#"{"format": 1, "group": "\#(group)", "takenAt": 817552882, "items": [\#(items.joined(separator: ","))]}"#.utf8).write(to: fill)
        let now = ["SHARED_KEYCHAIN_PROGRESS_AFTER": "0"]

        let restored = try cli.run(["restore", "--input", fill.path, "--admin"], environment: now)
        #expect(restored.status == 0, "\(restored.standardError)")
        #expect(restored.standardError.contains("restore: ") && restored.standardError.contains("/150 items"), "\(restored.standardError)")

        let snapshot = cli.fixtures.appendingPathComponent("snap.json").path
        let taken = try cli.run(["snapshot", "--group", group, "--output", snapshot, "--admin"], environment: now)
        #expect(taken.status == 0, "\(taken.standardError)")
        #expect(taken.standardError.contains("snapshot: read 100/150 items"), "\(taken.standardError)")
        #expect(taken.output.contains("wrote 150 items"))

        let listed = try cli.run(["item", "list", "--json", "--app", "com.example.big", "--team", "ABCDE12345"], environment: now)
        #expect(listed.status == 0, "\(listed.standardError)")
        #expect(listed.standardError.contains("item list: read 100/150 items"), "\(listed.standardError)")
        #expect((try JSONSerialization.jsonObject(with: listed.standardOutput) as? [Any])?.count == 150)

        // Without the override a quick run prints no progress at all.
        let quiet = try cli.run(["snapshot", "--group", group, "--output", snapshot, "--admin"])
        #expect(!quiet.standardError.contains("snapshot: read"), "\(quiet.standardError)")
    }

    /// By default: unmitigated and the deployable fix, each mitigation labelled, each report in
    /// two parts; the emulator-only run is offered, not run.
    @Test func wipeAllHazardShowsTheDevicesViewTheEmulatorsAndTheDeployableFix() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let run = try cli.run(["hazard", "run", "wipe-all"])
        #expect(run.status == 0, "\(run.standardError)")
        let output = run.output
        #expect(output.contains("UNMITIGATED (Keychain Services and MSAL as they ship)"))
        #expect(output.contains("DEPLOYABLE FIX\n  mitigation: per-app access groups, single sign-on through the broker [in your apps, deployable on iOS]"))
        #expect(!output.contains("WHAT-IF") && !output.contains("guarded delete refused"))
        #expect(output.contains("--what-if adds: guarded delete"))
        #expect(output.components(separatedBy: "  what a device shows:\n").count == 3)
        #expect(output.components(separatedBy: "  what only the emulator shows (recorded by the emulator; a device keeps none):\n").count == 3)
        #expect(output.contains("the group is empty") && output.contains("nothing on the device says which app wiped the group"))
        // Mail's sign-in (7 items) and MSAL's team-ID probe, both in the group Calendar wipes.
        #expect(output.contains("com.contoso.mail lost \(7 + 1) items to com.contoso.calendar's wipe"))
        #expect(output.contains("SIDE BY SIDE") && output.contains("UNMITIGATED  DEPLOYABLE\n"))

        let whatIf = try cli.run(["hazard", "run", "wipe-all", "--what-if", "--mitigated", "--json"])
        #expect(whatIf.status == 0, "\(whatIf.standardError)")
        let comparison = try whatIf.jsonObject()
        let runs = try #require(comparison["runs"] as? [[String: Any]])
        #expect(runs.map { $0["variant"] as? String } == ["deployable", "what-if"])
        let labels = runs.last.flatMap { $0["mitigations"] as? [[String: Any]] }?.compactMap { $0["label"] as? String }
        #expect(labels?.isEmpty == false && labels?.allSatisfy { $0 == "emulator only: what if the keychain had it" } == true)
        #expect((runs.last?["emulatorView"] as? [String: Any])?["audit"] as? [Any] != nil)

        let unknown = try cli.run(["hazard", "run", "no-such-hazard"])
        #expect(unknown.status != 0)
    }

    /// A hazard whose only mitigation is the emulator's runs it with --what-if, and says so
    /// without it; contradicting flags are refused before anything runs.
    @Test func hazardRunADALMSALSSOPrintsBothViewsAndTheFix() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let run = try cli.run(["hazard", "run", "adal-msal-sso", "--keyring", "memory"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.output.contains("UNMITIGATED") && run.output.contains("DEPLOYABLE FIX") && !run.output.contains("WHAT-IF"))
        #expect(run.output.contains("what a device shows:") && run.output.contains("(recorded by the emulator; a device keeps none)"))
        #expect(run.output.contains("legacy items left: 1 of client foci-1"))
        #expect(run.output.contains("--what-if adds: guarded delete"))
        let list = try cli.run(["hazard", "list"])
        #expect(list.output.contains("adal-msal-sso\n"))
    }

    @Test func hazardRunRefusesWhatItCannotRunAndListLabelsEveryMitigation() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let plain = try cli.run(["hazard", "run", "lost-update", "--keyring", "memory"])
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(plain.output.contains("UNMITIGATED") && !plain.output.contains("SIDE BY SIDE"))
        #expect(plain.output.contains("--what-if adds: compare-and-swap"))
        let mitigatedOnly = try cli.run(["hazard", "run", "lost-update", "--mitigated", "--keyring", "memory"])
        #expect(mitigatedOnly.status != 0)
        #expect(mitigatedOnly.standardError.contains("lost-update has no deployable mitigation; its emulator-only one runs with --what-if"))
        let contradiction = try cli.run(["hazard", "run", "wipe-all", "--unmitigated", "--what-if", "--keyring", "memory"])
        #expect(contradiction.status != 0)
        #expect(contradiction.standardError.contains("--what-if adds mitigated runs"))

        let list = try cli.run(["hazard", "list"])
        #expect(list.status == 0)
        #expect(list.output.contains("account-metadata-race\n"))
        #expect(list.output.contains("mitigation: guarded delete (only the app that added an item, as the emulator recorded it, or a privileged app deletes it) [emulator only: what if the keychain had it]"))
        #expect(list.output.contains("mitigation: a retry on the account-metadata race"))
        let help = try cli.run(["hazard", "run", "--help"])
        // Help text is wrapped to the terminal: compare it with its words joined by single spaces.
        let helpText = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(helpText.contains("--what-if") && helpText.contains("\"in your apps, deployable on iOS\""))
        #expect(helpText.contains("\"emulator only: what if the keychain had it\""))
        // The emulator's own mitigation commands say where they live too.
        for command in ["snapshot", "restore", "audit"] {
            let commandHelp = try cli.run([command, "--help"]).output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(commandHelp.contains("Emulator only: what if the keychain had it."), "\(command) --help")
        }
    }
}
