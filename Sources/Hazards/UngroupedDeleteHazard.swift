import Foundation
import Mitigations
import SharedKeychain
import Simulation

/// `ungrouped-delete`: Mail and Calendar share two groups (MSAL's cache and a suite group).
/// Mail's "sign out" clears the keychain with a delete that names no group, as many apps do
/// (`SecItemDelete` of the whole class); Keychain Services runs it on every group Mail is
/// entitled to, so Calendar's items in both shared groups go too. Mitigated: guarded delete on
/// the shared groups refuses the whole delete; a delete scoped to Mail's own group still works
/// (what-if). Deployable: Mail names its own group in the delete, as every app can today.
struct UngroupedDeleteHazard {
    let store: any ItemStore
    let variant: HazardVariant
    static let suiteGroup = "com.contoso.shared"

    func run() throws -> HazardReport {
        let shared = [MicrosoftApps.sharingGroup, Self.suiteGroup]
        let suite = try SimulatedSuite(store: store) { team in
            guard variant == .whatIf else { return .none }
            return MitigationPolicy(groups: Dictionary(uniqueKeysWithValues: shared.map { ("\(team.rawValue).\($0)", GroupPolicy.all()) }))
        }
        let mail = try suite.app(MicrosoftApps.mail, groups: shared)
        let calendar = try suite.app(MicrosoftApps.calendar, groups: shared)
        let groups = shared.map(suite.group) + [mail.keychain.app.appIDGroup.rawValue, calendar.keychain.app.appIDGroup.rawValue]
        defer { suite.cleanUp(groups) }
        var report = HazardReport(hazard: Hazard.ungroupedDelete.rawValue, variant: variant, store: store.name)
        report.groups = groups

        for app in [mail, calendar] {
            for group in groups.prefix(2) {
                try app.keychain.add(NewItem(account: "\(app.bundleID)-settings", service: "state", group: group, data: Data("{}".utf8)))
            }
            try app.keychain.add(NewItem(account: "\(app.bundleID)-private", service: "state", group: app.keychain.app.appIDGroup.rawValue, data: Data("{}".utf8)))
        }
        report.step("\(MicrosoftApps.mail) and \(MicrosoftApps.calendar) each add an item to both shared groups and one to their own app ID group: 6 items")

        let before = try everything(suite, groups)
        var deletedByMail = 0
        if variant == .deployable {
            deletedByMail = try mail.keychain.delete(KeychainQuery(group: mail.keychain.app.appIDGroup.rawValue))
            report.step("\(MicrosoftApps.mail) signs out with a delete that names its own app ID group: \(deletedByMail) item deleted")
        } else {
            do {
                deletedByMail = try mail.keychain.delete(KeychainQuery())
                report.step("\(MicrosoftApps.mail) signs out with a delete that names no group: \(deletedByMail) items deleted in \(mail.keychain.app.accessGroupNames.count) groups")
            } catch {
                guard let refusal = mail.refusal(for: error) else { throw error }
                report.step("\(MicrosoftApps.mail) signs out with a delete that names no group: refused, \(refusal.message)")
                report.record("refused deletes", 1)
                let own = try mail.keychain.delete(KeychainQuery(group: mail.keychain.app.appIDGroup.rawValue))
                report.step("\(MicrosoftApps.mail) scopes the delete to its own app ID group: \(own) item deleted")
                deletedByMail = own
            }
        }
        let calendarFinds = groups.prefix(2).filter { group in
            (try? calendar.keychain.first(KeychainQuery(group: group, account: "\(MicrosoftApps.calendar)-settings"))) != nil
        }.count
        report.step("\(MicrosoftApps.calendar) reads its settings in the shared groups: \(calendarFinds) of 2 found\(calendarFinds < 2 ? ", errSecItemNotFound for the rest, nothing says who deleted them" : "")")
        let after = try everything(suite, groups)
        report.losses = AppLoss.losses(before: before, after: after, causedBy: MicrosoftApps.mail)
        let calendarLost = report.losses.first { $0.app == MicrosoftApps.calendar }?.lost ?? 0
        report.record("items deleted by \(MicrosoftApps.mail)", deletedByMail)
        report.record("items of \(MicrosoftApps.calendar) lost", calendarLost)
        report.audit = try shared.map(suite.group).flatMap { (group) throws(StorageError) in try suite.audit(of: group) }
        report.verdict = calendarLost > 0
            ? "\(MicrosoftApps.mail)'s unscoped delete removed \(calendarLost) of \(MicrosoftApps.calendar)'s items in the shared groups"
            : variant == .deployable
                ? "\(MicrosoftApps.calendar) kept all its items: \(MicrosoftApps.mail)'s delete named only its own group"
                : "\(MicrosoftApps.calendar) kept all its items: the unscoped delete was refused as a whole"
        if variant == .deployable {
            report.limits = ["every delete in every app of the suite must name its group: one unscoped delete anywhere (a library, a sign-out path) still empties the shared groups"]
        }
        if variant == .whatIf {
            report.limits = [
                "the refusal is all or nothing: Mail's unscoped delete removed none of its own items either; it must name its group",
                "groups left out of the policy (here the app ID groups) keep Apple's behaviour",
            ]
        }
        return report
    }

    private func everything(_ suite: SimulatedSuite, _ groups: [String]) throws(StorageError) -> [StoredItem] {
        try suite.store.items(matching: ItemQuery(groups: groups), limit: nil)
    }
}
