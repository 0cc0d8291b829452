import Foundation
import Mitigations
import SharedKeychain
import Simulation

/// `lost-update`: two apps increment one shared JSON counter item by read-modify-write with no
/// lock, as apps sharing one cache blob do; increments made between another app's read and its
/// write are overwritten. Mitigated: the same shared counter, written with the project's
/// compare-and-swap (an update `ifVersion` the version read); an app whose write finds the item
/// changed reads it again and retries, so every increment lands.
struct LostUpdateHazard {
    let store: any ItemStore
    let mitigated: Bool
    static let increments = 20
    static let counterAccount = "shared.counter"
    static let counterService = "counter"
    /// The pause between read and write (a real app does work, or IPC, in between).
    static let pause: TimeInterval = 0.002

    /// The counter's JSON value: the total and, per app, the increments that landed.
    struct Counter: Codable, Sendable {
        var count = 0
        var by: [String: Int] = [:]
    }

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group("com.contoso.counters")
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.lostUpdate.rawValue, variant: mitigated ? .whatIf : .unmitigated, store: store.name)
        report.groups = [group]
        let apps = try [MicrosoftApps.mail, MicrosoftApps.calendar].map { try suite.app($0, groups: ["com.contoso.counters"]) }
        let accounts = apps.map { _ in Self.counterAccount }
        for (app, account) in zip(apps, accounts) where (try? app.keychain.first(KeychainQuery(group: group, account: account))) == nil {
            try app.keychain.add(NewItem(account: account, service: Self.counterService, group: group, data: try JSONEncoder().encode(Counter())))
        }
        report.step("\(apps.count) apps each increment the shared counter '\(Self.counterAccount)' \(Self.increments) times by read-modify-write\(mitigated ? " with compare-and-swap" : ""), at the same time")

        let outcomes = StartBarrier.run(apps.count) { index in
            Self.increment(apps[index], account: accounts[index], group: group, compareAndSwap: mitigated)
        }
        var retries = 0
        for outcome in outcomes {
            switch outcome {
            case .success(let retried): retries += retried
            case .failure(let error): throw error
            }
        }

        var final = 0
        var landed: [String: Int] = [:]
        for account in Set(accounts) {
            let item = try apps[0].keychain.first(KeychainQuery(group: group, account: account, service: Self.counterService))
            let counter = try JSONDecoder().decode(Counter.self, from: item.data)
            final += counter.count
            landed.merge(counter.by, uniquingKeysWith: +)
        }
        let expected = apps.count * Self.increments
        for app in apps {
            let lost = Self.increments - (landed[app.bundleID] ?? 0)
            let others = apps.map(\.bundleID).filter { $0 != app.bundleID }
            report.step("\(app.bundleID): \(landed[app.bundleID] ?? 0) of its \(Self.increments) increments landed")
            if lost > 0 { report.losses.append(AppLoss(app: app.bundleID, lost: lost, unit: "updates", causedBy: others)) }
        }
        report.record("expected count", expected)
        report.record("final count", final)
        report.record("lost updates", expected - final)
        if mitigated {
            report.step("\(retries) writes found the counter changed since they read it (errSKVersionConflict) and were retried")
            report.record("retried writes", retries)
        }
        report.verdict = final == expected
            ? "no update lost: \(final) of \(expected)"
            : "\(expected - final) of \(expected) updates lost: each app overwrote increments the other made between its read and its write"
        if mitigated {
            report.limits = ["compare-and-swap is this emulator's, not Apple's: real Keychain Services has no conditional update, so apps on a device still need a lock (msal-extensions' lock file) or data each app owns"]
        }
        return report
    }

    /// The app's increments; how many writes were retried after a version conflict, or the
    /// error that stopped them.
    static func increment(_ app: SimulatedApp, account: String, group: String, compareAndSwap: Bool) -> Result<Int, KeychainError> {
        let query = KeychainQuery(group: group, account: account, service: counterService)
        var retries = 0
        do throws(KeychainError) {
            for _ in 0..<increments {
                while true {
                    let item = try app.keychain.first(query)
                    var counter = (try? JSONDecoder().decode(Counter.self, from: item.data)) ?? Counter()
                    Thread.sleep(forTimeInterval: pause)
                    counter.count += 1
                    counter.by[app.bundleID, default: 0] += 1
                    let data = (try? JSONEncoder().encode(counter)) ?? Data()
                    do throws(KeychainError) {
                        try app.keychain.update(query, with: ItemChange(data: data, ifVersion: compareAndSwap ? item.version : nil))
                        break
                    } catch where error.status == .versionConflict {
                        retries += 1
                    }
                }
            }
            return .success(retries)
        } catch {
            return .failure(error)
        }
    }
}
