import Foundation
import SharedKeychain

/// `lost-update`: two apps increment one shared JSON counter item by read-modify-write with no
/// lock, as apps sharing one cache blob do; increments made between another app's read and its
/// write are overwritten. Mitigated: each app increments a counter item of its own (no shared
/// read-modify-write item) and readers add them up.
struct LostUpdateScenario {
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
        var report = HazardReport(hazard: Hazard.lostUpdate.rawValue, mitigated: mitigated, store: store.name)
        report.groups = [group]
        report.mitigations = mitigated ? ["per-app-items"] : []
        let apps = try [MicrosoftApps.mail, MicrosoftApps.calendar].map { try suite.app($0, groups: ["com.contoso.counters"]) }
        let accounts = apps.map { mitigated ? "\(Self.counterAccount).\($0.bundleID)" : Self.counterAccount }
        for (app, account) in zip(apps, accounts) where (try? app.keychain.first(KeychainQuery(group: group, account: account))) == nil {
            try app.keychain.add(NewItem(account: account, service: Self.counterService, group: group, data: try JSONEncoder().encode(Counter())))
        }
        report.step("\(apps.count) apps each increment \(mitigated ? "a counter item of their own" : "the shared counter '\(Self.counterAccount)'") \(Self.increments) times by read-modify-write, at the same time")

        let errors = ConcurrentApps.run(apps.count) { index in
            Self.increment(apps[index], account: accounts[index], group: group)
        }.compactMap { $0 }
        if let error = errors.first { throw error }

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
        report.verdict = final == expected
            ? "no update lost: \(final) of \(expected)"
            : "\(expected - final) of \(expected) updates lost: each app overwrote increments the other made between its read and its write"
        if mitigated {
            report.limits = ["per-app items avoid the race only for data each app can own; a value every app must change needs a lock (msal-extensions' lock file) or a compare-and-swap the keychain does not offer"]
        }
        return report
    }

    /// The app's increments; the error that stopped them, if any.
    static func increment(_ app: SimulatedApp, account: String, group: String) -> KeychainError? {
        let query = KeychainQuery(group: group, account: account, service: counterService)
        do {
            for _ in 0..<increments {
                var counter = (try? JSONDecoder().decode(Counter.self, from: try app.keychain.first(query).data)) ?? Counter()
                Thread.sleep(forTimeInterval: pause)
                counter.count += 1
                counter.by[app.bundleID, default: 0] += 1
                let data = (try? JSONEncoder().encode(counter)) ?? Data()
                try app.keychain.update(query, with: ItemChange(data: data))
            }
            return nil
        } catch {
            return error
        }
    }
}
