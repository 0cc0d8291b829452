import Foundation
import Mitigations
import SharedKeychain
import Simulation
import TokenCache

/// `remove-account-family`: Mail, Calendar and Teams are apps of family 1. A family refresh
/// token's `client_id` is whichever app wrote it last, while the emulator's provenance says
/// Mail created it (writes are update-then-add). Run in MSAL's classic FOCI mode and in
/// single-FRT mode (the `sfrt_v2` flight: one FamilyRefreshToken item, type 2008), each on its
/// own team:
///
/// 1. Mail signs alice in; Calendar gets SSO and so becomes the family token's `client_id`;
///    Calendar removes alice and deletes the family token; Teams, which relied on it, no longer
///    lists alice and fails a silent acquire of a new scope.
/// 2. Mail signs bob in and removes him: it created the family token, so guarded delete (what-if)
///    lets it go, and Teams loses bob in every run that shares the group.
///
/// Deployable: each app keeps its tokens in its own app-ID group and gets SSO through the
/// broker: Calendar's removal reaches only its own group.
struct RemoveAccountFamilyHazard {
    let store: any ItemStore
    let variant: HazardVariant
    static let bob = "bob@contoso.com"
    static let newScope = ["chat.read"]

    func run() throws -> HazardReport {
        var report = HazardReport(hazard: Hazard.removeAccountFamily.rawValue, variant: variant, store: store.name)
        var failures = 0
        var acquires = 0
        if variant == .deployable {
            failures += try perAppGroups(report: &report, acquires: &acquires)
        } else {
            for singleFRT in [false, true] {
                failures += try sharedGroup(singleFRT: singleFRT, report: &report, acquires: &acquires)
            }
        }
        report.record("silent acquires by \(MicrosoftApps.teams)", acquires)
        report.record("failed silent acquires", failures)
        switch variant {
        case .unmitigated:
            report.verdict = "\(MicrosoftApps.teams) lost SSO every time: \(failures) of \(acquires) silent acquires failed after a sibling removed the account, in classic and single-FRT mode"
        case .deployable:
            report.verdict = failures == 0
                ? "\(MicrosoftApps.teams) kept its sign-in: \(MicrosoftApps.calendar)'s removal reached only its own group"
                : "\(failures) of \(acquires) silent acquires by \(MicrosoftApps.teams) failed even with per-app groups"
            report.limits = [
                "per-app groups give up silent single sign-on from the shared cache: each app's first sign-in goes to the broker, which must be installed",
                "a user who signs out in one app stays signed in in the others; sign out everywhere through the broker if that is what the user asked",
            ]
        case .whatIf:
            report.verdict = "guarded delete kept the family token when \(MicrosoftApps.calendar) (its last writer) removed the account, but not when \(MicrosoftApps.mail) (its creator) did: \(failures) of \(acquires) Teams acquires failed"
            report.limits = [
                "no iOS keychain has guarded delete: this run shows what it would change, not what a team can ship",
                "the creator of a family refresh token may still delete it, and every sibling loses SSO (case 2)",
                "a refused remove fails as a whole at the first foreign item: \(MicrosoftApps.calendar) cannot sign alice out, and items deleted before the refusal stay deleted",
            ]
        }
        return report
    }

    /// Both cases in the shared group of a new team; returns the failed silent acquires of Teams.
    private func sharedGroup(singleFRT: Bool, report: inout HazardReport, acquires: inout Int) throws -> Int {
        let whatIf = variant == .whatIf
        let suite = try SimulatedSuite(store: store) { team in
            whatIf ? MitigationPolicy(groups: ["\(team.rawValue).\(MicrosoftApps.sharingGroup)": .all(privileged: [MicrosoftApps.authenticator])]) : .none
        }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        report.groups.append(group)
        let mode = singleFRT ? "single-FRT mode" : "classic mode"
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", singleFRT: singleFRT)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1", singleFRT: singleFRT)
        let teams = try suite.tokenApp(MicrosoftApps.teams, client: MicrosoftApps.teamsClient, family: "1", singleFRT: singleFRT)
        var failures = 0

        // Case 1: the family token's last writer, not its creator, removes the account.
        try mail.cache.signIn(username: MicrosoftApps.user)
        let sso = try calendar.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
        report.step("\(mode), case 1: \(MicrosoftApps.mail) signs in \(MicrosoftApps.user); \(MicrosoftApps.calendar) gets SSO (\(sso.source)) and becomes the family token's client_id\(singleFRT ? " (one FamilyRefreshToken item, type 2008)" : "")")
        report.step("\(MicrosoftApps.teams) lists \(try Self.list(teams.cache)); it never signed in itself")
        var before = try suite.items(in: group)
        report.emulator("\(mode): the family refresh token was created by \(Self.familyTokenCreator(before)); on a device its JSON names only its last writer, \(MicrosoftApps.calendar)")
        do {
            let deleted = try calendar.cache.remove(account: MicrosoftApps.user)
            report.step("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user): \(deleted) credentials deleted, the family token among them")
        } catch {
            guard let refusal = calendar.app.refusal(for: error) else { throw error }
            report.step("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user): refused: \(refusal.message) Its remove fails, so it stays signed in")
            report.record("refused removes", (report.metric("refused removes") ?? 0) + 1)
        }
        AppLoss.merge(AppLoss.losses(before: before, after: try suite.items(in: group), causedBy: MicrosoftApps.calendar), into: &report.losses)
        report.step("after the removal \(MicrosoftApps.teams) lists \(try Self.list(teams.cache)); \(MicrosoftApps.mail) lists \(try Self.list(mail.cache))")
        acquires += 1
        if !teamsAcquires(teams.cache, account: MicrosoftApps.user, report: &report) { failures += 1 }

        // Case 2: the family token's creator removes the account.
        try mail.cache.signIn(username: Self.bob)
        report.step("\(mode), case 2: \(MicrosoftApps.mail) signs in \(Self.bob) and is the family token's client_id")
        before = try suite.items(in: group)
        let deleted = try mail.cache.remove(account: Self.bob)
        report.step("\(MicrosoftApps.mail) removes \(Self.bob): \(deleted) credentials deleted, the family token among them")
        AppLoss.merge(AppLoss.losses(before: before, after: try suite.items(in: group), causedBy: MicrosoftApps.mail), into: &report.losses)
        report.step("after the removal \(MicrosoftApps.teams) lists \(try Self.list(teams.cache))")
        acquires += 1
        if !teamsAcquires(teams.cache, account: Self.bob, report: &report) { failures += 1 }
        if whatIf { report.audit += try suite.audit(of: group) }
        return failures
    }

    /// The deployable fix: every app in its own group, SSO through the broker.
    private func perAppGroups(report: inout HazardReport, acquires: inout Int) throws -> Int {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", ownGroup: true)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1", ownGroup: true)
        let teams = try suite.tokenApp(MicrosoftApps.teams, client: MicrosoftApps.teamsClient, family: "1", ownGroup: true)
        let broker = try BrokerSpoofHazard.broker(suite)
        report.groups = [mail, calendar, teams].map(\.cache.accessGroup)
        defer { suite.cleanUp(suite.perAppGroups([mail, calendar, teams], broker: broker)) }

        for app in [mail, calendar, teams] {
            let prompted = try suite.brokerSignIn(app, broker: broker, user: MicrosoftApps.user)
            report.step("\(app.app.bundleID) signs in \(MicrosoftApps.user) through the broker\(prompted ? " (prompted)" : " (SSO, no prompt)") into its own group")
        }
        let before = try suite.store.items(matching: ItemQuery(groups: report.groups), limit: nil)
        let deleted = try calendar.cache.remove(account: MicrosoftApps.user)
        report.step("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user): \(deleted) credentials deleted, all in its own group")
        report.losses = AppLoss.losses(before: before, after: try suite.store.items(matching: ItemQuery(groups: report.groups), limit: nil), causedBy: MicrosoftApps.calendar)
            .filter { $0.app != MicrosoftApps.calendar }
        report.step("after the removal \(MicrosoftApps.teams) lists \(try Self.list(teams.cache)); \(MicrosoftApps.mail) lists \(try Self.list(mail.cache)); \(MicrosoftApps.calendar) lists \(try Self.list(calendar.cache))")
        report.emulator(report.losses.isEmpty ? "no item of \(MicrosoftApps.mail) or \(MicrosoftApps.teams) was deleted" : "\(MicrosoftApps.calendar) deleted items of other apps")
        acquires += 1
        return teamsAcquires(teams.cache, account: MicrosoftApps.user, report: &report) ? 0 : 1
    }

    /// The account list as MSAL computes it (`allAccounts`), or `no account`.
    private static func list(_ cache: TokenCache) throws -> String {
        let names = try cache.accounts().map(\.username)
        return names.isEmpty ? "no account" : names.joined(separator: ", ")
    }

    /// Who created the group's family refresh token(s), by the emulator's provenance.
    private static func familyTokenCreator(_ items: [StoredItem]) -> String {
        // The family token's service starts with `refreshtoken-1-` (classic) or is type 2008 (single-FRT).
        let family = items.filter { $0.type == 2008 || $0.service.hasPrefix("refreshtoken-1-") }
        let creators = AppLoss.creators(of: family).map(\.app)
        return creators.isEmpty ? "no app" : creators.joined(separator: ", ")
    }

    /// Teams' silent acquire of a new scope; whether it succeeded.
    private func teamsAcquires(_ teams: TokenCache, account: String, report: inout HazardReport) -> Bool {
        do {
            let result = try teams.acquireTokenSilent(account: account, scopes: Self.newScope)
            report.step("\(MicrosoftApps.teams) acquires '\(Self.newScope.joined(separator: " "))' for \(account) silently: ok (\(result.source))")
            return true
        } catch {
            report.step("\(MicrosoftApps.teams) acquires '\(Self.newScope.joined(separator: " "))' for \(account) silently: \(error.errorCode ?? "failed") (\(error.message))")
            return false
        }
    }
}
