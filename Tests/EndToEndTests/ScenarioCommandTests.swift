import Foundation
import Testing

@Suite("End to end: scenarios with apps as processes")
struct ScenarioCommandTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/scenarios")

    private func scenario(_ name: String) -> String { Self.examples.appendingPathComponent("\(name).yaml").path }

    @Test("wipe-all as app processes: every assertion holds, the JSON report has the timeline")
    func wipeAllInProcesses() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let result = try cli.run(["scenario", "run", "--scenario", scenario("wipe-all"), "--fresh", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try result.jsonObject()
        #expect(report["mode"] as? String == "processes")
        #expect(report["passed"] as? Bool == true)
        #expect(report["apps"] as? [String] == ["com.contoso.mail", "com.contoso.calendar"])
        let timeline = try #require(report["timeline"] as? [[String: Any]])
        let refreshes = timeline.filter { $0["job"] as? String == "refresh" }
        #expect(refreshes.count >= 8)
        let codes = refreshes.compactMap { ($0["outcome"] as? [String: Any])?["code"] as? String }
        #expect(codes.contains("interaction_required"))
        // Nothing secret in the report: no token values, masked or not.
        #expect(!result.output.contains("emulated-acc"))
    }

    @Test("device steps: a refresh works while locked, fails after a reboot until the first unlock, and a killed daemon comes back")
    func lockedDeviceScenario() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let before = try #require(try cli.run(["keyring", "start", "--json"]).jsonObject()["pid"] as? Int)
        let result = try cli.run(["scenario", "run", "--scenario", scenario("locked-device"), "--fresh", "--json"])
        #expect(result.status == 0, "\(result.standardError)")
        let report = try result.jsonObject()
        #expect(report["passed"] as? Bool == true)
        let timeline = try #require(report["timeline"] as? [[String: Any]])
        #expect(timeline.compactMap { $0["operation"] as? String }.filter { $0.hasPrefix("device ") }
            == ["device lock", "device reboot", "device unlock", "device kill-daemon"])
        // The daemon the scenario killed was started again by the next call.
        let after = try cli.run(["keyring", "status", "--json"]).jsonObject()
        #expect(after["running"] as? Bool == true)
        #expect(after["pid"] as? Int != before)
        #expect(try cli.run(["device", "status", "--json"]).jsonObject()["locked"] as? Bool == false)
    }

    @Test("the same scenario in process gives the same verdicts")
    func wipeAllInProcess() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let result = try cli.run(["scenario", "run", "--scenario", scenario("wipe-all"), "--fresh", "--in-process"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.output.contains("4 of 4 assertions passed"))
        #expect(result.output.contains("apps in process"))
    }

    @Test("guarded-wipe as processes: the refusal crosses processes through the store")
    func guardedWipe() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let result = try cli.run(["scenario", "run", "--scenario", scenario("guarded-wipe"), "--fresh"])
        #expect(result.status == 0, "\(result.output)\n\(result.standardError)")
        let audit = try #require((try cli.run(["audit", "--group", "ABCDE12345.com.microsoft.adalcache", "--json", "--admin"]).jsonObject())["entries"] as? [[String: Any]])
        #expect(audit.contains { $0["app"] as? String == "com.contoso.calendar" && $0["outcome"] as? String == "refused" })
    }

    @Test("a failed assertion exits 21; a bad scenario exits 10 and runs nothing")
    func exitCodes() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = Self.examples.deletingLastPathComponent().appendingPathComponent("suite").path
        let failing = cli.fixtures.appendingPathComponent("failing.yaml")
        try "steps:\n  - {app: com.contoso.notes, do: item get, account: nobody, expect: ok}\n".write(to: failing, atomically: true, encoding: .utf8)
        let failed = try cli.run(["scenario", "run", "--scenario", failing.path, "--suite", suite])
        #expect(failed.status == 21)
        #expect(failed.output.contains("✘ step 1, com.contoso.notes item get account=nobody: expected ok; got errSecItemNotFound"))
        #expect(failed.output.contains("0 of 1 assertion passed"))

        let bad = cli.fixtures.appendingPathComponent("bad.yaml")
        try "steps:\n  - {app: com.contoso.mail, do: token wipe}\n  - {stop: nothing}\n".write(to: bad, atomically: true, encoding: .utf8)
        let refused = try cli.run(["scenario", "run", "--scenario", bad.path, "--suite", suite, "--json"])
        #expect(refused.status == 10)
        #expect(refused.standardError.contains("step 2: no job named 'nothing'"))
        #expect(refused.output.isEmpty)
    }

    @Test("the memory keyring needs --in-process")
    func memoryNeedsInProcess() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let result = try cli.run(["scenario", "run", "--scenario", scenario("concurrent-signin"), "--keyring", "memory"])
        #expect(result.status == 10)
        #expect(result.standardError.contains("--in-process"))
        let inProcess = try cli.run(["scenario", "run", "--scenario", scenario("concurrent-signin"), "--keyring", "memory", "--in-process"])
        #expect(inProcess.status == 0, "\(inProcess.standardError)")
    }
}
