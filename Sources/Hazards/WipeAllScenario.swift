import Foundation
import Mitigations
import SharedKeychain
import TokenCache

/// `wipe-all`: Mail signs alice in; Calendar, which never signed anyone in, calls
/// `wipeCacheForAllAccounts`; Mail's background refresh then needs interaction, and, as on a
/// device, nothing in the group says who did it (the SDK's full wipe deletes the wipe record
/// too); only the emulator's own record (the losses, by creator) names Calendar. Mitigated: guarded delete refuses Calendar, Mail keeps working, the
/// audit journal shows the attempt; a wipe by a privileged app (Authenticator) still goes
/// through, and the snapshot taken before brings Mail's items back.
struct WipeAllScenario {
    let store: any ItemStore
    let mitigated: Bool
    /// Background refreshes Mail runs after the wipe, an hour apart (so each needs its refresh token).
    static let refreshes = 3

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { team in
            mitigated ? MitigationPolicy(groups: ["\(team.rawValue).\(MicrosoftApps.sharingGroup)": .all(privileged: [MicrosoftApps.authenticator])]) : .none
        }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.wipeAll.rawValue, mitigated: mitigated, store: store.name)
        report.groups = [group]
        report.mitigations = mitigated ? ["guarded-delete", "audit", "snapshot"] : []
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1")
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1")

        try mail.cache.signIn(username: MicrosoftApps.user)
        let signedIn = try suite.items(in: group)
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user): \(signedIn.count) items in the group, all created by \(MicrosoftApps.mail)")
        var snapshot: GroupSnapshot?
        if mitigated {
            snapshot = try GroupSnapshot.take(of: group, from: store, at: suite.clock.now)
            report.step("snapshot of the group taken: \(signedIn.count) items")
        }

        let wiped = try wipe(by: calendar, report: &report)
        let afterWipe = try suite.items(in: group)
        report.losses = AppLoss.losses(before: signedIn, after: afterWipe, causedBy: MicrosoftApps.calendar)
        report.record("items deleted by \(MicrosoftApps.calendar)", wiped)

        let label = report.metric("refused deletes") == nil ? "after the wipe" : "after the refused wipe"
        let failed = try backgroundRefresh(mail.cache, clock: suite.clock, label: label, report: &report)
        report.record("background refreshes", Self.refreshes)
        report.record("failed refreshes", failed)
        if let record = try mail.cache.wipeInfo() {
            report.step("\(MicrosoftApps.mail) reads the wipe record: \(record)")
        } else if wiped > 0 {
            report.step("\(MicrosoftApps.mail) finds no wipe record: on a device a full wipe leaves no trace of who made it (the emulator's record: \(MicrosoftApps.calendar) deleted \(wiped) items)")
        } else {
            report.step("\(MicrosoftApps.mail) finds no wipe record: nobody deleted tokens")
        }

        if let snapshot {
            try recover(with: snapshot, suite: suite, group: group, mail: mail.cache, report: &report)
        }
        report.audit = try suite.audit(of: group)
        if mitigated {
            let refused = report.audit.filter { $0.outcome == .refused && $0.app == MicrosoftApps.calendar }.count
            report.step("audit journal: \(report.audit.count) entries; \(refused) refused delete by \(MicrosoftApps.calendar)")
        }

        report.verdict = failed == 0
            ? "\(MicrosoftApps.mail) kept its sign-in: \(MicrosoftApps.calendar)'s wipe was refused and every background refresh succeeded"
            : "\(MicrosoftApps.mail) lost \(report.losses.first { $0.app == MicrosoftApps.mail }?.lost ?? 0) items to \(MicrosoftApps.calendar)'s wipe; \(failed) of \(Self.refreshes) background refreshes failed with interaction_required"
        if mitigated {
            report.limits = [
                "a privileged app (here \(MicrosoftApps.authenticator)) may still wipe everything; only the snapshot brings the items back",
                "items added after the snapshot are lost when a privileged wipe happens; take snapshots regularly",
                "an app may still delete the items it created itself, and read every item of the group",
            ]
        }
        return report
    }

    /// Calendar's wipe: the number of items deleted, or 0 when guarded delete refused it.
    private func wipe(by calendar: (app: SimulatedApp, cache: TokenCache), report: inout HazardReport) throws -> Int {
        do {
            let wiped = try calendar.cache.wipeCacheForAllAccounts()
            report.step("\(MicrosoftApps.calendar) calls wipeCacheForAllAccounts: \(wiped) items deleted, the wipe record with them")
            return wiped
        } catch {
            guard let refusal = calendar.app.view.refusal(for: error) else { throw error }
            report.step("\(MicrosoftApps.calendar) calls wipeCacheForAllAccounts: refused, \(refusal.status.name): \(refusal.message)")
            report.record("refused deletes", calendar.app.view.refusalLog.count)
            return 0
        }
    }

    /// Mail's background refresh loop; returns how many refreshes failed.
    private func backgroundRefresh(_ mail: TokenCache, clock: ScenarioClock, label: String, report: inout HazardReport) throws -> Int {
        var failed = 0
        for round in 1...Self.refreshes {
            clock.advance(by: 3600)
            do {
                let result = try mail.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
                report.step("\(MicrosoftApps.mail) background refresh \(round) \(label): ok (\(result.source))")
            } catch {
                guard error.errorCode == "interaction_required" else { throw error }
                failed += 1
                report.step("\(MicrosoftApps.mail) background refresh \(round) \(label): \(error.message)")
            }
        }
        return failed
    }

    /// The privileged wipe guarded delete allows, and the restore that undoes it.
    private func recover(
        with snapshot: GroupSnapshot, suite: SimulatedSuite, group: String, mail: TokenCache, report: inout HazardReport
    ) throws {
        let authenticator = try suite.tokenApp(MicrosoftApps.authenticator, client: MicrosoftApps.authenticatorClient, family: "1")
        let before = try suite.items(in: group)
        let wiped = try authenticator.cache.wipeCacheForAllAccounts()
        let lost = AppLoss.losses(before: before, after: try suite.items(in: group), causedBy: MicrosoftApps.authenticator)
        report.step("\(MicrosoftApps.authenticator) (privileged) calls wipeCacheForAllAccounts: allowed, \(wiped) items deleted")
        let failedAfterPrivilegedWipe = try backgroundRefresh(mail, clock: suite.clock, label: "after the privileged wipe", report: &report)
        let restored = try snapshot.restore(into: store)
        report.step("snapshot restored: \(restored)")
        let failedAfterRestore = try backgroundRefresh(mail, clock: suite.clock, label: "after the restore", report: &report)
        report.record("items deleted by the privileged wipe", lost.reduce(0) { $0 + $1.lost })
        report.record("failed refreshes after the privileged wipe", failedAfterPrivilegedWipe)
        report.record("items restored from the snapshot", restored.restored)
        report.record("failed refreshes after the restore", failedAfterRestore)
    }
}
