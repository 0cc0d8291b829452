import Foundation
import Mitigations
import SharedKeychain
import Simulation
import TokenCache

/// `adal-msal-sso`: Expenses, an older app of the suite still built with ADAL, and Mail, built
/// with MSAL, share the suite's one client ID and the group `com.microsoft.adalcache`. Expenses
/// signs alice in: ADAL writes its legacy items (the refresh token again under `foci-<fid>` when
/// the server names a family) and, beside them, MSAL's refresh token, app metadata and account.
/// Mail lists alice and acquires silently from them: single sign-on. Then Mail's `removeAccount`
/// runs IdentityCore's legacy accessor too (`MSIDLegacyTokenCacheAccessor clearCacheForAccount`
/// with Mail's client ID): every legacy item of that client ID goes, Expenses' among them; the
/// `foci-<fid>` copy is another client ID and survives. Run with a family (`1`) and without
/// one (as a third party's apps are), each on its own team; after an hour Expenses refreshes:
/// through the family copy it stays signed in, without one it needs the user.
///
/// Deployable: each app keeps its cache in its own group (ADAL: `setDefaultKeychainGroup:nil`,
/// the app's bundle ID; MSAL: `keychainSharingGroup` = its bundle ID) and Mail gets single
/// sign-on through the broker; its removal reaches only its own group. No MSAL sign-out call
/// spares the legacy items: `removeAccount` always runs the legacy accessor with the caller's
/// client ID, and `wipeAccount` deletes every client's legacy items of the user, `foci-*`
/// copies included. What-if: guarded delete refuses Mail's removal of items Expenses added.
struct ADALMSALSSOHazard {
    let store: any ItemStore
    let variant: HazardVariant
    /// ADAL's legacy items' `kSecAttrGeneric` (IdentityCore `MSIDLegacyTokenCacheKey`).
    static let legacyGeneric = Data("MSOpenTech.ADAL.1".utf8)

    func run() throws -> HazardReport {
        var report = HazardReport(hazard: Hazard.adalMSALSSO.rawValue, variant: variant, store: store.name)
        if variant == .deployable {
            try perAppGroups(report: &report)
        } else {
            for family in ["1", nil] as [String?] { try sharedGroup(family: family, report: &report) }
        }
        let acquires = report.metric("silent acquires by \(MicrosoftApps.expenses)") ?? 0
        let failed = report.metric("failed silent acquires") ?? 0
        switch variant {
        case .unmitigated:
            let deleted = report.metric("ADAL legacy items deleted by \(MicrosoftApps.mail)") ?? 0
            report.verdict = "\(MicrosoftApps.mail)'s removeAccount deleted \(deleted) of \(MicrosoftApps.expenses)'s ADAL legacy items, all but the foci copy; \(failed) of \(acquires) later refreshes by \(MicrosoftApps.expenses) failed: with a family it refreshes through the foci copy, without one it needs the user"
        case .deployable:
            report.verdict = failed == 0
                ? "\(MicrosoftApps.expenses) kept its sign-in: \(MicrosoftApps.mail)'s removeAccount reached only its own group"
                : "\(failed) of \(acquires) refreshes by \(MicrosoftApps.expenses) failed even with per-app groups"
            report.limits = [
                "per-app groups give up single sign-on from the ADAL app's sign-in: Mail's first sign-in goes to the broker, which must be installed (ADAL's own broker path is not emulated: Expenses signs in itself)",
                "a user who signs out in Mail stays signed in in Expenses; if that is not what the user asked, sign out in each app",
                "migrating Expenses to MSAL (ADAL is out of support) does not spare it in a shared group: Mail's removeAccount then deletes its tokens of the one client ID and marks the account signed_out for both",
            ]
        case .whatIf:
            report.verdict = "guarded delete refused \(MicrosoftApps.mail)'s removal of items \(MicrosoftApps.expenses) added: \(failed) of \(acquires) refreshes by \(MicrosoftApps.expenses) failed, and \(MicrosoftApps.mail) could not sign alice out"
            report.limits = [
                "no iOS keychain has guarded delete: this run shows what it would change, not what a team can ship",
                "a refused remove fails as a whole at the first foreign item: \(MicrosoftApps.mail) cannot sign the user out, and items deleted before the refusal stay deleted",
            ]
        }
        return report
    }

    /// Expenses (ADAL) and Mail (MSAL) in the shared group of a new team, of `family` or none.
    private func sharedGroup(family: String?, report: inout HazardReport) throws {
        let whatIf = variant == .whatIf
        let suite = try SimulatedSuite(store: store) { team in
            whatIf ? MitigationPolicy(groups: ["\(team.rawValue).\(MicrosoftApps.sharingGroup)": .all(privileged: [MicrosoftApps.authenticator])]) : .none
        }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        report.groups.append(group)
        let label = family.map { "family \($0)" } ?? "no family"
        let client = MicrosoftApps.mailClient
        let expenses = try suite.tokenApp(MicrosoftApps.expenses, client: client, family: family, sdk: .adal)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: client, family: family)

        try expenses.cache.signIn(username: MicrosoftApps.user)
        let signedIn = try suite.items(in: group)
        let legacy = Self.legacyItems(signedIn)
        let probes = signedIn.filter(Self.isTeamIDProbe).count
        let probeText = probes == 0 ? "" : ", and the team-ID probe"
        report.step("\(label): \(MicrosoftApps.expenses) (ADAL) signs in \(MicrosoftApps.user): \(legacy.count) ADAL legacy items (\(Self.describe(legacy))), \(signedIn.count - legacy.count - probes) MSAL-format items\(probeText) in the group")
        let sso = try mail.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
        report.step("\(MicrosoftApps.mail) (MSAL, the same client ID) lists \(try Self.list(mail.cache)) and acquires silently: ok (\(sso.source)), single sign-on from the ADAL sign-in")

        let before = try suite.items(in: group)
        do {
            let deleted = try mail.cache.remove(account: MicrosoftApps.user)
            let left = Self.legacyItems(try suite.items(in: group))
            report.step("\(MicrosoftApps.mail) removes \(MicrosoftApps.user) (removeAccount): \(deleted) items deleted, \(Self.legacyItems(before).count - left.count) of them ADAL legacy items of client \(client); legacy items left: \(left.isEmpty ? "none" : Self.describe(left))")
        } catch {
            guard let refusal = mail.app.refusal(for: error) else { throw error }
            report.step("\(MicrosoftApps.mail) removes \(MicrosoftApps.user) (removeAccount): refused: \(refusal.message) Its remove fails, so it stays signed in")
            report.record("refused removes", (report.metric("refused removes") ?? 0) + 1)
        }
        let after = try suite.items(in: group)
        let lost = AppLoss.losses(before: before, after: after, causedBy: MicrosoftApps.mail).filter { $0.app != MicrosoftApps.mail }
        AppLoss.merge(lost, into: &report.losses)
        let legacyDeleted = Self.legacyItems(before).count - Self.legacyItems(after).count
        report.record("ADAL legacy items deleted by \(MicrosoftApps.mail)", (report.metric("ADAL legacy items deleted by \(MicrosoftApps.mail)") ?? 0) + legacyDeleted)
        if let record = try mail.cache.wipeInfo() {
            report.step("any app of the group can read the wipe record it left: \(record)")
        }
        let gone = lost.first { $0.app == MicrosoftApps.expenses }?.lost ?? 0
        report.emulator("\(label): \(MicrosoftApps.mail)'s removal deleted \(gone) items \(MicrosoftApps.expenses) had added")

        // An hour later the legacy access token has expired either way: Expenses must refresh.
        suite.clock.advance(by: 3600)
        report.step("an hour later \(MicrosoftApps.expenses) lists \(try Self.list(expenses.cache)); \(MicrosoftApps.mail) lists \(try Self.list(mail.cache))")
        expensesRefreshes(expenses.cache, report: &report)
        report.step("after it \(MicrosoftApps.mail) lists \(try Self.list(mail.cache)); \(Self.silently(mail.cache, MicrosoftApps.mail))")
        if whatIf { report.audit += try suite.audit(of: group) }
    }

    /// The deployable fix: each app in its own group; Mail's single sign-on through the broker.
    private func perAppGroups(report: inout HazardReport) throws {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let client = MicrosoftApps.mailClient
        let expenses = try suite.tokenApp(MicrosoftApps.expenses, client: client, family: "1", ownGroup: true, sdk: .adal)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: client, family: "1", ownGroup: true)
        let broker = try BrokerSpoofHazard.broker(suite)
        report.groups = [expenses.cache.accessGroup, mail.cache.accessGroup]
        defer { suite.cleanUp(suite.perAppGroups([expenses, mail], broker: broker)) }

        try expenses.cache.signIn(username: MicrosoftApps.user)
        let expensesItems = try suite.items(in: expenses.cache.accessGroup)
        report.step("\(MicrosoftApps.expenses) (ADAL) signs in \(MicrosoftApps.user) into its own group: \(Self.legacyItems(expensesItems).count) ADAL legacy items, \(expensesItems.count) items in all")
        let prompted = try suite.brokerSignIn(mail, broker: broker, user: MicrosoftApps.user)
        report.step("\(MicrosoftApps.mail) (MSAL) signs in \(MicrosoftApps.user) through the broker\(prompted ? " (prompted: the broker had no account yet)" : " (single sign-on, no prompt)") into its own group")
        let deleted = try mail.cache.remove(account: MicrosoftApps.user)
        let expensesAfter = try suite.items(in: expenses.cache.accessGroup)
        report.step("\(MicrosoftApps.mail) removes \(MicrosoftApps.user) (removeAccount): \(deleted) items deleted, all in its own group; \(MicrosoftApps.expenses)'s group still holds \(expensesAfter.count) of \(expensesItems.count) items")
        report.losses = AppLoss.losses(before: expensesItems, after: expensesAfter, causedBy: MicrosoftApps.mail)
        report.record("ADAL legacy items deleted by \(MicrosoftApps.mail)", Self.legacyItems(expensesItems).count - Self.legacyItems(expensesAfter).count)
        report.emulator(report.losses.isEmpty ? "no item \(MicrosoftApps.expenses) added was deleted" : "\(MicrosoftApps.mail) deleted items \(MicrosoftApps.expenses) added")
        suite.clock.advance(by: 3600)
        report.step("an hour later \(MicrosoftApps.expenses) lists \(try Self.list(expenses.cache)); \(MicrosoftApps.mail) lists \(try Self.list(mail.cache))")
        expensesRefreshes(expenses.cache, report: &report)
    }

    /// Expenses' silent acquire after the removal, counted.
    private func expensesRefreshes(_ expenses: TokenCache, report: inout HazardReport) {
        let name = "silent acquires by \(MicrosoftApps.expenses)"
        report.record(name, (report.metric(name) ?? 0) + 1)
        do {
            let result = try expenses.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
            report.step("\(MicrosoftApps.expenses) (ADAL) acquires silently for \(MicrosoftApps.user): ok (\(result.source))")
            report.record("failed silent acquires", report.metric("failed silent acquires") ?? 0)
        } catch {
            report.step("\(MicrosoftApps.expenses) (ADAL) acquires silently for \(MicrosoftApps.user): \(error.errorCode ?? "failed") (\(error.message))")
            report.record("failed silent acquires", (report.metric("failed silent acquires") ?? 0) + 1)
        }
    }

    /// `<app> acquires silently for alice: ok (source)` or the error's code and message.
    private static func silently(_ cache: TokenCache, _ app: String) -> String {
        do {
            let result = try cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes)
            return "\(app) acquires silently for \(MicrosoftApps.user): ok (\(result.source))"
        } catch {
            return "\(app) acquires silently for \(MicrosoftApps.user): \(error.errorCode ?? "failed") (\(error.message))"
        }
    }

    /// IdentityCore's team-ID probe (`MSIDKeychainUtil` `appDefaultAccessGroup`: account
    /// `SDK.ObjC.teamIDHint`, empty service), in the app's first group: ADAL makes it too.
    private static func isTeamIDProbe(_ item: StoredItem) -> Bool {
        item.account == "SDK.ObjC.teamIDHint" && item.service.isEmpty && item.type == nil
    }

    /// ADAL's legacy items of `items`: generic `MSOpenTech.ADAL.1`, no type.
    private static func legacyItems(_ items: [StoredItem]) -> [StoredItem] {
        items.filter { $0.generic == legacyGeneric && $0.type == nil }
    }

    /// `client 0a1b… 2, foci-1 1`: legacy items per client ID (the service's last field,
    /// base64url; IdentityCore `MSIDLegacyTokenCacheKey serviceWithAuthority`).
    private static func describe(_ items: [StoredItem]) -> String {
        var counts: [(client: String, count: Int)] = []
        for item in items {
            let client = item.service.split(separator: "|").last.flatMap { decodeBase64URL(String($0)) } ?? "?"
            if let index = counts.firstIndex(where: { $0.client == client }) { counts[index].count += 1 } else { counts.append((client, 1)) }
        }
        return counts.map { "\($0.count) of client \($0.client)" }.joined(separator: ", ")
    }

    private static func decodeBase64URL(_ text: String) -> String? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The account list as the SDK computes it, or `no account`.
    private static func list(_ cache: TokenCache) throws -> String {
        let names = try cache.accounts().map(\.username)
        return names.isEmpty ? "no account" : names.joined(separator: ", ")
    }
}
