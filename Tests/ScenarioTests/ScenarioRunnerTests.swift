import Foundation
import KeychainStorage
import Scenarios
import KeychainTestSupport
import SharedKeychain
import Simulation
import Testing
import TokenCache

@Suite("Scenario runs in process")
struct ScenarioRunnerTests {
    private func run(_ file: URL, on store: any ItemStore) throws -> ScenarioReport {
        try ScenarioRunner(scenario: Scenario.load(from: file), store: store).run(launcher: .inProcess)
    }

    @Test("a scenario with device steps is refused before it starts when the run has no device")
    func deviceStepsNeedADevice() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let scenario = try Scenario.load(from: examples.scenario("locked-device"))
        #expect(scenario.steps.contains(.device(.lock)) && scenario.steps.contains(.device(.killDaemon)))
        let store = InMemoryStore()
        #expect(throws: ScenarioError.self) { try ScenarioRunner(scenario: scenario, store: store).run(launcher: .inProcess) }
        #expect(try store.items(matching: ItemQuery(groups: scenario.groups()), limit: nil).isEmpty)
    }

    /// A device that can lock but has no daemon to signal, and counts what it did.
    final class LockOnlyDevice: DeviceControl {
        func refusal(of action: DeviceAction) -> String? {
            [.lock, .unlock, .reboot].contains(action) ? nil : "no daemon here"
        }
        func perform(_ action: DeviceAction) throws -> String { "did \(action)" }
        func lockState() -> DeviceLockState { .unlocked }
    }

    @Test("a device that cannot do a step refuses the scenario before it starts, naming the step")
    func deviceRefusesBeforeStart() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let scenario = try Scenario.load(from: examples.scenario("locked-device"))
        let store = InMemoryStore()
        do {
            _ = try ScenarioRunner(scenario: scenario, store: store, device: LockOnlyDevice()).run(launcher: .inProcess)
            Issue.record("the scenario ran")
        } catch {
            #expect(error.description.contains("step 8: no daemon here"), "\(error)")
        }
        #expect(try store.items(matching: ItemQuery(groups: scenario.groups()), limit: nil).isEmpty)
    }

    @Test("a hostile item in the shared group is skipped by the scenario's apps and reported once")
    func hostileItemsAreSkippedAndReported() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let scenario = try Scenario.load(from: examples.scenario("concurrent-signin"))
        let store = InMemoryStore()
        let group = try #require(try scenario.groups().first { $0.hasSuffix(".com.microsoft.adalcache") })
        let now = Date()
        // ADAL's legacy item for Alice whose archive refers to itself.
        try store.add(StoredItem(
            group: group, account: "YWxpY2VAY29udG9zby5jb20", service: "MSOpenTech.ADAL.1|hostile", generic: Data("MSOpenTech.ADAL.1".utf8),
            creationDate: now, modificationDate: now, data: HostileArchive.archive(.selfReference, rootClass: "ADTokenCacheStoreItem")))
        let skipped = SkippedItemReport()
        let report = try ScenarioRunner(scenario: scenario, store: store, skippedItems: skipped).run(launcher: .inProcess)
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
        #expect(skipped.items == [SkippedItem(
            group: group, account: "YWxpY2VAY29udG9zby5jb20", service: "MSOpenTech.ADAL.1|hostile",
            reason: "the archive's objects refer to themselves in a cycle")])
    }

    @Test("wipe-all: the refresh job fails after the wipe, and no wipe record is left in the group", arguments: Backend.memoryAndKeyring)
    func wipeAll(backend: Backend) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let report = try run(examples.scenario("wipe-all"), on: backend.makeStore())
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
        #expect(report.verdicts.count == 4)
        let refresh = try #require(report.jobs.first { $0.name == "refresh" })
        #expect(refresh.tally.ok >= 3)
        #expect(refresh.tally.failures["interaction_required"] ?? 0 >= 3)
        // Every run before the wipe succeeded, every run that started after it failed.
        let wipe = try #require(report.timeline.first { $0.operation == "token wipe" })
        let wipeEnd = wipe.time + (wipe.outcome?.seconds ?? 0)
        let runs = report.timeline.filter { $0.job == "refresh" }
        #expect(runs.filter { $0.time > wipeEnd }.allSatisfy { $0.outcome?.code == "interaction_required" })
        #expect(runs.filter { $0.time + ($0.outcome?.seconds ?? 0) < wipe.time }.allSatisfy { $0.outcome?.succeeded == true })
        #expect(report.timeline.map(\.time) == report.timeline.map(\.time).sorted())
    }

    @Test("guarded-wipe: the wipe is refused and no refresh fails", arguments: Backend.memoryAndKeyring)
    func guardedWipe(backend: Backend) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let store = try backend.makeStore()
        let report = try run(examples.scenario("guarded-wipe"), on: store)
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
        let wipe = try #require(report.timeline.first { $0.operation == "token wipe" }?.outcome)
        #expect(wipe.status == .missingEntitlement)
        #expect(wipe.message?.contains("guarded delete refused com.contoso.calendar") == true)
        // The refusal was journaled in the store, where every app can read it.
        let journal = try store.items(matching: ItemQuery(groups: ["\(examples.sharedGroup).sharedkeychain-audit"]), limit: nil)
        #expect(journal.count >= 1)
    }

    @Test("concurrent sign-ins are both listed, and an expired token is refreshed after advance-clock", arguments: Backend.memoryAndKeyring)
    func concurrentSignIn(backend: Backend) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let report = try run(examples.scenario("concurrent-signin"), on: backend.makeStore())
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
        let signIns = report.timeline.filter { $0.step == 2 }
        #expect(signIns.count == 2)
        #expect(signIns.allSatisfy { $0.outcome?.succeeded == true })
    }

    @Test("lost-update: every increment is acknowledged, the counter says how many survived", arguments: Backend.memoryAndKeyring)
    func lostUpdate(backend: Backend) throws {
        let examples = try Examples()
        defer { examples.remove() }
        let report = try run(examples.scenario("lost-update"), on: backend.makeStore())
        let acknowledged = report.jobs.reduce(0) { $0 + $1.tally.ok }
        #expect(report.jobs.reduce(0) { $0 + $1.tally.runs } == 40)
        let counter = try #require(report.timeline.last { $0.operation.hasPrefix("item counter") }?.outcome?.value).flatMap(Int.init)
        let value = try #require(counter)
        // Nothing invents updates; the verdict holds exactly when none was lost.
        #expect(value >= 1 && value <= acknowledged)
        #expect(report.verdicts.first?.passed == (value == 40))
        #expect(report.verdicts.first?.observed == "ok, value '\(value)'")
    }

    @Test("a failed assertion is reported with what was expected and what happened")
    func failedAssertion() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("fails", steps: """
              - {app: com.contoso.mail, do: token signin, user: alice@contoso.com}
              - {app: com.contoso.calendar, do: token accounts, expect: {count: 2}}
              - {app: com.contoso.notes, do: item get, account: nobody, expect: ok}
              - {app: com.contoso.notes, do: item get, account: nobody, expect: errSecItemNotFound}
            """)
        let report = try run(file, on: InMemoryStore())
        #expect(!report.passed)
        #expect(report.failedCount == 2)
        #expect(report.verdicts.map(\.passed) == [false, false, true])
        #expect(report.verdicts[0].expected == "ok, count 2")
        #expect(report.verdicts[0].observed == "ok, count 1, value 'alice@contoso.com'")
        #expect(report.verdicts[1].observed == "errSecItemNotFound")
        #expect(report.verdicts[0].step == 2)
    }

    @Test("a job runs its times, a stopped job ends, stop judges its tally")
    func jobs() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let file = try examples.write("jobs", steps: """
              - {background: counted, app: com.contoso.mail, do: item increment, account: c, times: 5}
              - {background: forever, app: com.contoso.calendar, do: item list, every: 1ms}
              - {wait: {job: counted}}
              - {wait: {job: forever, runs: 4}}
              - {stop: forever, expect: {runs: {at-least: 4}, failed: 0}}
              - {stop: counted, expect: {runs: 5, ok: 5}}
              - {app: com.contoso.mail, do: item counter, account: c, expect: {value: "5"}}
            """)
        let report = try run(file, on: InMemoryStore())
        #expect(report.passed, "\(report.verdicts.filter { !$0.passed })")
        let forever = try #require(report.jobs.first { $0.name == "forever" })
        // No run is recorded after its stop.
        let stop = try #require(report.timeline.first { $0.operation == "stop forever" })
        #expect(report.timeline.filter { $0.job == "forever" }.count == forever.tally.runs)
        #expect(report.timeline.filter { $0.job == "forever" }.allSatisfy { $0.time <= stop.time })
    }

    @Test("--fresh empties the scenario's groups, and only those")
    func emptyGroups() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let store = InMemoryStore()
        let date = Date()
        for group in [examples.sharedGroup, "\(examples.team).com.contoso.mail", "\(examples.team).com.other"] {
            try store.add(StoredItem(group: group, account: "a", service: "s", creationDate: date, modificationDate: date, data: Data()))
        }
        let runner = try ScenarioRunner(scenario: Scenario.load(from: examples.scenario("wipe-all")), store: store)
        #expect(try runner.emptyGroups() == 2)
        #expect(try store.items(matching: ItemQuery(groups: ["\(examples.team).com.other"]), limit: nil).count == 1)
    }
}
