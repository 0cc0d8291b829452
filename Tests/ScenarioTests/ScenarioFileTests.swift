import Foundation
import SharedKeychain
import Scenarios
import Testing

@Suite("Scenario files: reading and checking")
struct ScenarioFileTests {
    @Test("every example scenario reads and passes the checks")
    func examplesLoad() throws {
        let examples = try Examples()
        defer { examples.remove() }
        for name in ["wipe-all", "guarded-wipe", "concurrent-signin", "lost-update"] {
            let scenario = try Scenario.load(from: examples.scenario(name))
            #expect(scenario.name == name)
            #expect(!scenario.steps.isEmpty)
            #expect(scenario.suite.apps.count == 3)
        }
        let wipe = try Scenario.load(from: examples.scenario("wipe-all"))
        #expect(wipe.apps.map(\.bundleID) == ["com.contoso.mail", "com.contoso.calendar"])
        guard case .background(let job) = wipe.steps[2] else {
            Issue.record("step 3 should be a background job, is \(wipe.steps[2])")
            return
        }
        #expect(job.name == "refresh")
        #expect(job.every == WrittenDuration(seconds: 0.05))
        #expect(job.operation.kind == .tokenAcquire)
        #expect(job.operation.silent == true)
        let groups = try Scenario.load(from: examples.scenario("guarded-wipe")).groups()
        #expect(groups.contains(examples.sharedGroup))
        #expect(groups.contains("\(examples.sharedGroup).sharedkeychain-audit"))
    }

    @Test("JSON scenarios read like YAML ones")
    func json() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = examples.directory.appendingPathComponent("scenarios/s.json")
        try Data(#"{"suite": "../suite", "steps": [{"app": "com.contoso.mail", "do": "item list", "expect": {"count": {"at-most": 0}}}]}"#.utf8)
            .write(to: file)
        let scenario = try Scenario.load(from: file)
        guard case .operation(let step) = scenario.steps.first else {
            Issue.record("expected an operation step")
            return
        }
        #expect(step.expect == ExpectedOutcome(count: CountRange(atMost: 0)))
    }

    @Test("expect takes a status name, a number, interaction_required or a mapping")
    func expectations() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("expects", steps: """
              - {app: com.contoso.mail, do: item list, expect: ok}
              - {app: com.contoso.mail, do: item get, expect: errSecItemNotFound}
              - {app: com.contoso.mail, do: item list, group: other, expect: -34018}
              - {app: com.contoso.mail, do: token acquire, account: a@b.c, silent: true, expect: interaction_required}
              - {app: com.contoso.mail, do: token accounts, expect: {count: {at-least: 1, at-most: 3}, value: x}}
            """)
        let expected: [ExpectedOutcome] = [
            ExpectedOutcome(status: .ok), ExpectedOutcome(status: .status(.itemNotFound)), ExpectedOutcome(status: .status(.missingEntitlement)),
            ExpectedOutcome(status: .code("interaction_required")), ExpectedOutcome(count: CountRange(atLeast: 1, atMost: 3), value: "x"),
        ]
        let read = try Scenario.load(from: file).steps.map { step -> ExpectedOutcome? in
            if case .operation(let operation) = step { return operation.expect }
            return nil
        }
        #expect(read == expected)
    }

    @Test("a bad file is refused with the file, the step and the problem", arguments: [
        ("- {app: com.contoso.mail, do: item list, evry: 2}", "step 1", "unknown key 'evry'"),
        ("- {app: com.contoso.mail, do: item fetch}", "step 1", "unknown operation 'item fetch'"),
        ("- {app: com.contoso.mail, do: token signin}", "step 1", "'token signin' needs 'user'"),
        ("- {background: b, app: com.contoso.mail, do: item list, every: soon}", "step 1", "'soon' is not a duration"),
        ("- {wait: 1s}\n  - {app: com.contoso.mail, do: item list, expect: {count: {at-least: 3, at-most: 1}}}", "step 2", "at-least 3 is more than at-most 1"),
        ("- {app: com.contoso.mail, do: item list, expect: maybe}", "step 1", "'maybe' is not an outcome"),
        ("- {wait: 1s, stop: x}", "step 1", "exactly one of"),
        ("- {hello: world}", "step 1", "a step needs one of"),
        ("- {concurrent: [{app: com.contoso.mail, do: item list}]}", "step 1", "at least two"),
        ("- {device: shake}", "step 1", "unknown device action 'shake'; one of lock, unlock, reboot, kill-daemon"),
        ("- {device: lock, app: com.contoso.mail}", "step 1", "unknown key 'app'"),
    ])
    func malformed(steps: String, place: String, reason: String) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("bad", steps: "  " + steps)
        let error = #expect(throws: ScenarioError.self) { try Scenario.load(from: file) }
        let message = error?.description ?? ""
        #expect(message.hasPrefix(file.path))
        #expect(message.contains(place), "\(message)")
        #expect(message.contains(reason), "\(message)")
        #expect(error?.status == .param)
    }

    @Test("steps that cannot work are refused before anything runs", arguments: [
        ("- {app: com.contoso.photos, do: item list}", 1, "com.contoso.photos"),
        ("- {stop: refresh}", 1, "no job named 'refresh'"),
        ("- {background: r, app: com.contoso.mail, do: item list}\n  - {wait: {job: r}}", 2, "runs until stopped"),
        ("- {background: r, app: com.contoso.mail, do: item list, times: 2}\n  - {wait: {job: r, runs: 3}}", 2, "never reaches 3 runs"),
        ("- {background: r, app: com.contoso.mail, do: item list}\n  - {stop: r}\n  - {stop: r}", 3, "was stopped before"),
        ("- {background: r, app: com.contoso.mail, do: item list}\n  - {background: r, app: com.contoso.mail, do: item list}", 2, "started before"),
        ("- {app: com.contoso.mail, do: item list, delay: 1s}", 1, "delay only applies inside concurrent"),
    ])
    func invalid(steps: String, step: Int, reason: String) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("invalid", steps: "  " + steps)
        let error = #expect(throws: ScenarioError.self) { try Scenario.load(from: file) }
        let message = error?.description ?? ""
        #expect(message.contains("step \(step)"), "\(message)")
        #expect(message.contains(reason), "\(message)")
    }

    @Test("durations", arguments: [("250ms", 0.25), ("2s", 2), ("1.5s", 1.5), ("10m", 600), ("2h", 7200), ("3", 3)])
    func durations(text: String, seconds: Double) {
        #expect(WrittenDuration(parsing: text)?.seconds == seconds)
    }

    @Test("durations that are none", arguments: ["", "-1s", "soon", "5 parsecs", "ms"])
    func notDurations(text: String) {
        #expect(WrittenDuration(parsing: text) == nil)
    }

    @Test("a scenario without a suite, and a missing suite, are named")
    func suites() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = examples.directory.appendingPathComponent("scenarios/nosuite.yaml")
        try "steps:\n  - {wait: 1ms}\n".write(to: file, atomically: true, encoding: .utf8)
        let noSuite = #expect(throws: ScenarioError.self) { try Scenario.load(from: file) }
        #expect(noSuite?.description.contains("no suite") == true)
        // --suite supplies it.
        let loaded = try Scenario.load(from: file, suite: examples.directory.appendingPathComponent("suite"))
        #expect(loaded.suite.apps.count == 3)
        let missing = try examples.write("missing", steps: "  - {wait: 1ms}\n").deletingLastPathComponent()
            .appendingPathComponent("missing-suite.yaml")
        try "suite: ../nowhere\nsteps:\n  - {wait: 1ms}\n".write(to: missing, atomically: true, encoding: .utf8)
        let error = #expect(throws: ScenarioError.self) { try Scenario.load(from: missing) }
        #expect(error?.description.contains("nowhere") == true)
    }
}
