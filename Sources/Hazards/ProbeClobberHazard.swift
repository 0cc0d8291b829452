import Foundation
import Mitigations
import SharedKeychain
import Simulation

/// `probe-clobber`: apps that start at once run msal-extensions' start-up self-test on one fixed
/// probe item: write it, read it back, delete it. Their writes overwrite each other and their
/// deletes remove each other's probe, so some self-tests fail. Mitigated: each app's probe
/// account includes its bundle ID; no two apps touch the same item.
struct ProbeClobberHazard {
    let store: any ItemStore
    let mitigated: Bool
    static let apps = 6
    static let probeAccount = "msal.selftest.probe"
    static let probeService = "msal.selftest"
    /// The pause between the self-test's steps (a real one talks to a daemon in between).
    static let pause: TimeInterval = 0.02

    /// One app's self-test.
    struct Outcome: Sendable {
        let app: String
        /// Nil when it passed.
        let failure: String?
        /// Who overwrote or deleted the app's probe, when known.
        let culprit: String?
    }

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group("com.contoso.selftest")
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.probeClobber.rawValue, variant: mitigated ? .deployable : .unmitigated, store: store.name)
        report.groups = [group]
        let apps = try (1...Self.apps).map { try suite.app("com.contoso.app\($0)", groups: ["com.contoso.selftest"]) }
        report.step("\(Self.apps) apps start at once and self-test on \(mitigated ? "a probe item of their own" : "the fixed probe '\(Self.probeAccount)'"): write, read back, delete")

        let mitigated = self.mitigated
        let outcomes = StartBarrier.run(apps.count) { index in Self.selfTest(apps[index], group: group, perApp: mitigated) }
        for outcome in outcomes {
            report.step("\(outcome.app): " + (outcome.failure.map { "self-test FAILED: \($0)" } ?? "self-test passed"))
            if outcome.failure != nil {
                AppLoss.merge([AppLoss(app: outcome.app, lost: 1, unit: "probes", causedBy: [outcome.culprit ?? "another app's self-test"])], into: &report.losses)
            }
        }
        let failed = outcomes.filter { $0.failure != nil }.count
        report.record("self-tests", outcomes.count)
        report.record("failed self-tests", failed)
        report.verdict = "\(failed) of \(outcomes.count) self-tests failed"
            + (failed == 0 ? "" : ": the apps deleted or overwrote each other's probe")
        if mitigated {
            report.limits = ["per-app probes leave an app's own probe behind if it crashes mid-test; the next start overwrites it"]
        }
        return report
    }

    /// Write, read back, delete; the first step that goes wrong.
    static func selfTest(_ app: SimulatedApp, group: String, perApp: Bool) -> Outcome {
        let account = perApp ? "\(probeAccount).\(app.bundleID)" : probeAccount
        let value = Data("\(app.bundleID):\(UUID().uuidString)".utf8)
        let query = KeychainQuery(group: group, account: account, service: probeService)
        do {
            do {
                try app.keychain.update(query, with: ItemChange(data: value))
            } catch .itemNotFound {
                do {
                    try app.keychain.add(NewItem(account: account, service: probeService, group: group, data: value))
                } catch .duplicateItem {
                    try app.keychain.update(query, with: ItemChange(data: value))
                }
            }
            Thread.sleep(forTimeInterval: pause)
            let read = try app.keychain.first(query)
            guard read.data == value else {
                let writer = String(decoding: read.data, as: UTF8.self).split(separator: ":").first.map(String.init)
                return Outcome(app: app.bundleID, failure: "read back another app's probe (written by \(writer ?? "?"))", culprit: writer)
            }
            Thread.sleep(forTimeInterval: pause)
            try app.keychain.delete(query)
            return Outcome(app: app.bundleID, failure: nil, culprit: nil)
        } catch .itemNotFound {
            return Outcome(app: app.bundleID, failure: "its probe was gone: another app deleted it", culprit: nil)
        } catch {
            return Outcome(app: app.bundleID, failure: error.message, culprit: nil)
        }
    }
}
