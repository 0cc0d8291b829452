import Foundation
import Mitigations
import SharedKeychain
import Simulation
import TokenCache

/// `wipe-all`: Mail signs alice in; Calendar, which never signed anyone in, calls
/// `wipeCacheForAllAccounts`. What a device shows: the group is empty, the wipe record
/// included (the SDK's full wipe deletes it too), and Mail's background refresh gets
/// `interaction_required` with nothing saying why. What only the emulator shows: its provenance
/// names Calendar. Deployable: each app keeps its tokens in its own app-ID group, single sign-on
/// goes through the broker, and Calendar signs out with `removeAccount`, never a full wipe.
/// What-if: guarded delete refuses Calendar, the audit journal shows the attempt; a wipe by a
/// privileged app (Authenticator) still goes through, and the snapshot taken before brings
/// Mail's items back.
struct WipeAllHazard {
    let store: any ItemStore
    let variant: HazardVariant
    /// Background refreshes Mail runs after the wipe, an hour apart (so each needs its refresh token).
    static let refreshes = 3

    func run() throws -> HazardReport {
        variant == .deployable ? try runInPerAppGroups() : try runInSharedGroup()
    }

    private func runInSharedGroup() throws -> HazardReport {
        let whatIf = variant == .whatIf
        let suite = try SimulatedSuite(store: store) { team in
            whatIf ? MitigationPolicy(groups: ["\(team.rawValue).\(MicrosoftApps.sharingGroup)": .all(privileged: [MicrosoftApps.authenticator])]) : .none
        }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.wipeAll.rawValue, variant: variant, store: store.name)
        report.groups = [group]
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1")
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1")

        try mail.cache.signIn(username: MicrosoftApps.user)
        let signedIn = try suite.items(in: group)
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user): \(signedIn.count) items in the group")
        report.emulator("\(MicrosoftApps.mail)'s sign-in added the group's items: \(Self.creators(signedIn))")
        var snapshot: GroupSnapshot?
        if whatIf {
            snapshot = try GroupSnapshot.take(of: group, from: store, at: suite.clock.now)
            report.emulator("snapshot of the group taken: \(signedIn.count) items")
        }

        let wiped = try wipe(by: calendar, report: &report)
        let afterWipe = try suite.items(in: group)
        report.losses = AppLoss.losses(before: signedIn, after: afterWipe, causedBy: MicrosoftApps.calendar)
        report.record("items deleted by \(MicrosoftApps.calendar)", wiped)
        report.record("items left in the group", afterWipe.count)
        report.step(Self.describe(left: afterWipe, wiped: wiped))

        let label = report.metric("refused deletes") == nil ? "after the wipe" : "after the refused wipe"
        let failed = try backgroundRefresh(mail.cache, clock: suite.clock, label: label, report: &report)
        report.record("background refreshes", Self.refreshes)
        report.record("failed refreshes", failed)
        let record = try mail.cache.wipeInfo()
        report.record("wipe records in the group", record == nil ? 0 : 1)
        if let record {
            report.step("\(MicrosoftApps.mail) reads the wipe record: \(record)")
        } else if failed > 0 {
            report.step("\(MicrosoftApps.mail) looks for a clue: no wipe record, no item, nothing on the device says which app wiped the group")
        }
        if wiped > 0 {
            report.emulator("\(MicrosoftApps.calendar) deleted \(wiped) items, added by \(Self.creators(signedIn.filter { item in !afterWipe.contains { $0.primaryKey == item.primaryKey } }))")
        }

        if let snapshot {
            try recover(with: snapshot, suite: suite, group: group, mail: mail.cache, report: &report)
        }
        report.audit = try suite.audit(of: group)
        if whatIf {
            let refused = report.audit.filter { $0.outcome == .refused && $0.app == MicrosoftApps.calendar }.count
            report.emulator("audit journal: \(report.audit.count) entries; \(refused) refused delete by \(MicrosoftApps.calendar)")
        }

        report.verdict = failed == 0
            ? "\(MicrosoftApps.mail) kept its sign-in: \(MicrosoftApps.calendar)'s wipe was refused and every background refresh succeeded"
            : "\(MicrosoftApps.mail) lost \(report.losses.first { $0.app == MicrosoftApps.mail }?.lost ?? 0) items to \(MicrosoftApps.calendar)'s wipe; \(failed) of \(Self.refreshes) background refreshes failed with interaction_required, and the device keeps no trace of who wiped"
        if whatIf {
            report.limits = [
                "no iOS keychain has guarded delete, an audit journal or snapshots: this run shows what they would change, not what a team can ship",
                "a privileged app (here \(MicrosoftApps.authenticator)) may still wipe everything; only the snapshot brings the items back",
                "items added after the snapshot are lost when a privileged wipe happens; take snapshots regularly",
                "an app may still delete the items it created itself, and read every item of the group",
            ]
        }
        return report
    }

    /// The deployable fix: Mail and Calendar each keep their tokens in their own app-ID group
    /// and get single sign-on through the broker; Calendar signs out with removeAccount.
    private func runInPerAppGroups() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        var report = HazardReport(hazard: Hazard.wipeAll.rawValue, variant: variant, store: store.name)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", ownGroup: true)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1", ownGroup: true)
        let broker = try BrokerSpoofHazard.broker(suite)
        report.groups = [mail.cache.accessGroup, calendar.cache.accessGroup]
        defer { suite.cleanUp(suite.perAppGroups([mail, calendar], broker: broker)) }

        let mailPrompted = try suite.brokerSignIn(mail, broker: broker, user: MicrosoftApps.user)
        let mailItems = try suite.items(in: mail.cache.accessGroup)
        report.step("\(MicrosoftApps.mail) signs in \(MicrosoftApps.user) through the broker\(mailPrompted ? " (prompted)" : ""): \(mailItems.count) items in its own group \(mail.cache.accessGroup)")
        let calendarPrompted = try suite.brokerSignIn(calendar, broker: broker, user: MicrosoftApps.user)
        report.step("\(MicrosoftApps.calendar) gets single sign-on through the broker\(calendarPrompted ? " after a prompt" : " without a prompt"): \(try suite.items(in: calendar.cache.accessGroup).count) items in its own group")

        let removed = try calendar.cache.remove(account: MicrosoftApps.user)
        report.step("\(MicrosoftApps.calendar) signs \(MicrosoftApps.user) out with removeAccount (never wipeCacheForAllAccounts): \(removed) credentials deleted, all in its own group")
        let mailAfter = try suite.items(in: mail.cache.accessGroup)
        report.step("\(MicrosoftApps.mail)'s group still holds \(mailAfter.count) of \(mailItems.count) items")
        report.losses = AppLoss.losses(before: mailItems, after: mailAfter, causedBy: MicrosoftApps.calendar)
        let failed = try backgroundRefresh(mail.cache, clock: suite.clock, label: "after Calendar's sign-out", report: &report)
        report.record("items deleted by \(MicrosoftApps.calendar)", removed)
        report.record("items left in the group", mailAfter.count)
        report.record("background refreshes", Self.refreshes)
        report.record("failed refreshes", failed)
        report.emulator(report.losses.isEmpty ? "no item \(MicrosoftApps.mail) created was deleted" : "\(MicrosoftApps.calendar) deleted items \(MicrosoftApps.mail) created")
        report.verdict = failed == 0
            ? "\(MicrosoftApps.mail) kept its sign-in: \(MicrosoftApps.calendar)'s sign-out could reach only its own group"
            : "\(failed) of \(Self.refreshes) background refreshes of \(MicrosoftApps.mail) failed even in its own group"
        report.limits = [
            "per-app groups give up silent single sign-on from the shared cache: each app's first sign-in goes to the broker (Authenticator or Company Portal), which must be installed",
            "a wipeCacheForAllAccounts in an app still empties that app's own group: keep it for a reset the user asked for",
        ]
        return report
    }

    /// The items of `items` per app that added them, by the emulator's provenance: `com.contoso.mail 7`.
    private static func creators(_ items: [StoredItem]) -> String {
        let counts = AppLoss.creators(of: items)
        return counts.isEmpty ? "none" : counts.map { "\($0.app) \($0.count)" }.joined(separator: ", ")
    }

    /// What any app of the group sees after the wipe: how many items are left, and whether the
    /// wipe record is among them.
    private static func describe(left: [StoredItem], wiped: Int) -> String {
        // MSAL's wipe record: account `TokenWipe` (IdentityCore `MSIDKeychainTokenCache.m` `saveWipeInfoWithContext`).
        let record = left.contains { $0.account == "TokenWipe" }
        if left.isEmpty {
            return "the group is empty: \(wiped) items gone, no wipe record left"
        }
        return "the group holds \(left.count) items\(record ? ", the wipe record among them" : ", no wipe record")"
    }

    /// Calendar's wipe: the number of items deleted, or 0 when guarded delete refused it.
    private func wipe(by calendar: (app: SimulatedApp, cache: TokenCache), report: inout HazardReport) throws -> Int {
        do {
            let wiped = try calendar.cache.wipeCacheForAllAccounts()
            report.step("\(MicrosoftApps.calendar) calls wipeCacheForAllAccounts: success")
            return wiped
        } catch {
            guard let refusal = calendar.app.refusal(for: error) else { throw error }
            report.step("\(MicrosoftApps.calendar) calls wipeCacheForAllAccounts: refused, \(refusal.status.name): \(refusal.message)")
            report.record("refused deletes", calendar.app.refusals.count)
            return 0
        }
    }

    /// Mail's background refresh loop; returns how many refreshes failed.
    private func backgroundRefresh(_ mail: TokenCache, clock: SimulationClock, label: String, report: inout HazardReport) throws -> Int {
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
        report.emulator("snapshot restored: \(restored)")
        let failedAfterRestore = try backgroundRefresh(mail, clock: suite.clock, label: "after the restore", report: &report)
        report.record("items deleted by the privileged wipe", lost.reduce(0) { $0 + $1.lost })
        report.record("failed refreshes after the privileged wipe", failedAfterPrivilegedWipe)
        report.record("items restored from the snapshot", restored.restored)
        report.record("failed refreshes after the restore", failedAfterRestore)
    }
}
