import Foundation
import Mitigations
import SharedKeychain
import TokenCache

/// `remove-account-family`: Mail, Calendar and Teams are apps of family 1. A family refresh
/// token's `client_id` is whichever app wrote it last, while its keychain `creator` stays the
/// app that first added it (writes are update-then-add). Two cases:
///
/// 1. Mail signs alice in (it creates the family token); Calendar gets SSO and so becomes the
///    token's `client_id`; Calendar removes alice and deletes the family token; Teams, which
///    relied on it, fails a silent acquire of a new scope. Guarded delete refuses Calendar
///    (it did not create the token): Teams keeps SSO, but Calendar's remove fails.
/// 2. Mail signs bob in and removes him: Mail created the family token, so guarded delete lets
///    it go, and Teams loses bob in both runs. The mitigation does not prevent this.
struct RemoveAccountFamilyScenario {
    let store: any ItemStore
    let mitigated: Bool
    static let bob = "bob@contoso.com"
    static let newScope = ["chat.read"]

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { team in
            mitigated ? MitigationPolicy(groups: ["\(team.rawValue).\(MicrosoftApps.sharingGroup)": .all(privileged: [MicrosoftApps.authenticator])]) : .none
        }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.removeAccountFamily.rawValue, mitigated: mitigated, store: store.name)
        report.groups = [group]
        report.mitigations = mitigated ? ["guarded-delete", "audit"] : []
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1")
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1")
        let teams = try suite.tokenApp(MicrosoftApps.teams, client: MicrosoftApps.teamsClient, family: "1")
        var failures = 0

        // Case 1: the family token's last writer, not its creator, removes the account.
        try mail.cache.signIn(username: MicrosoftApps.user)
        let sso = try calendar.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
        report.step("case 1: \(MicrosoftApps.mail) signs in \(MicrosoftApps.user) and creates the family refresh token; \(MicrosoftApps.calendar) gets SSO (\(sso.source)) and becomes the token's client_id")
        report.step("\(MicrosoftApps.teams) lists \(try teams.cache.accounts().map(\.username).joined(separator: ", ")) through the family token; it never signed in itself")
        var before = try suite.items(in: group)
        do {
            let deleted = try calendar.cache.remove(account: MicrosoftApps.user)
            report.step("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user): \(deleted) credentials deleted, the family token among them")
        } catch {
            guard let refusal = calendar.app.view.refusal(for: error) else { throw error }
            report.step("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user): refused: \(refusal.message) Its remove fails, so it stays signed in")
            report.record("refused removes", 1)
        }
        AppLoss.merge(AppLoss.losses(before: before, after: try suite.items(in: group), causedBy: MicrosoftApps.calendar), into: &report.losses)
        if !teamsAcquires(teams.cache, account: MicrosoftApps.user, report: &report) { failures += 1 }

        // Case 2: the family token's creator removes the account.
        try mail.cache.signIn(username: Self.bob)
        report.step("case 2: \(MicrosoftApps.mail) signs in \(Self.bob) and creates (and is client_id of) the family refresh token")
        before = try suite.items(in: group)
        let deleted = try mail.cache.remove(account: Self.bob)
        report.step("\(MicrosoftApps.mail) removes \(Self.bob): \(deleted) credentials deleted, the family token among them (it created them all, so guarded delete allows it)")
        AppLoss.merge(AppLoss.losses(before: before, after: try suite.items(in: group), causedBy: MicrosoftApps.mail), into: &report.losses)
        if !teamsAcquires(teams.cache, account: Self.bob, report: &report) { failures += 1 }

        report.record("silent acquires by \(MicrosoftApps.teams)", 2)
        report.record("failed silent acquires", failures)
        report.audit = try suite.audit(of: group)
        report.verdict = mitigated
            ? "guarded delete kept the family token when \(MicrosoftApps.calendar) (its last writer) removed the account, but not when \(MicrosoftApps.mail) (its creator) did: \(failures) of 2 Teams acquires failed"
            : "\(MicrosoftApps.teams) lost SSO both times: \(failures) of 2 silent acquires failed after a sibling removed the account"
        if mitigated {
            report.limits = [
                "the creator of a family refresh token may still delete it, and every sibling loses SSO (case 2)",
                "a refused remove fails as a whole at the first foreign item: \(MicrosoftApps.calendar) cannot sign alice out, and items deleted before the refusal stay deleted",
                "the fix belongs in the SDK: a remove should not delete a family token other apps rely on",
            ]
        }
        return report
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
