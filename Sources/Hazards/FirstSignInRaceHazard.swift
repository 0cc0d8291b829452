import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import TokenCache

/// `first-sign-in-race`: two family apps of the suite sign one user in for the first time at
/// once. Both write the family refresh token (`refreshtoken-1--`, the same key for every app of
/// the family) and the account record. MSAL's `saveData` makes one `SecItemUpdate` and, when it
/// finds nothing, one `SecItemAdd`; Calendar's add landing in between makes Mail's add
/// errSecDuplicateItem, which fails that item, and `saveTokensWithConfiguration` stops there:
/// Mail's own refresh token, app metadata and account are not written. Mail gets its token all
/// the same (`validateAndSaveTokenResponse` only logs the failure). The interleaving is forced
/// by a store under Mail that runs Calendar's sign-in right before Mail's add of the family
/// token, never by timing.
///
/// Deployable: after a first sign-in, one forced silent refresh (the app cannot see the logged
/// failure): the family token redeems, and its response writes every item.
struct FirstSignInRaceHazard {
    let store: any ItemStore
    let variant: HazardVariant
    /// The family refresh token's service, which every app of family "1" writes.
    static let familyTokenService = "refreshtoken-1--"
    /// IdentityCore's item types: refresh token, app metadata, account (MSSTS).
    static let refreshTokenType: UInt32 = 2002
    static let appMetadataType: UInt32 = 3001
    static let accountType: UInt32 = 1003

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.firstSignInRace.rawValue, variant: variant, store: store.name)
        report.groups = [group]
        let racing = AddInterleavingStore(store) { $0.type == Self.refreshTokenType && $0.service == Self.familyTokenService }
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: MicrosoftApps.mailClient, family: "1", store: racing)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: MicrosoftApps.calendarClient, family: "1")

        let during = Mutex<[String]>([])
        racing.arm {
            let line: String
            do {
                let result = try calendar.cache.signIn(username: MicrosoftApps.user)
                line = "\(MicrosoftApps.calendar) signs \(MicrosoftApps.user) in at the same moment: \(Self.saved(result))"
            } catch {
                line = "\(MicrosoftApps.calendar) signs \(MicrosoftApps.user) in at the same moment: \(error)"
            }
            during.withLock { $0.append(line) }
        }
        report.step("\(MicrosoftApps.mail) and \(MicrosoftApps.calendar), apps of family 1, sign \(MicrosoftApps.user) in for the first time")
        let mailResult = try mail.cache.signIn(username: MicrosoftApps.user)
        for line in during.withLock({ $0 }) { report.step(line) }
        report.step("\(MicrosoftApps.mail)'s sign-in returns its token: \(Self.saved(mailResult))")
        if racing.interleaved {
            report.emulator("the emulator ordered the calls: \(MicrosoftApps.mail)'s SecItemUpdate of the family refresh token (service \(Self.familyTokenService)) found nothing, then \(MicrosoftApps.calendar)'s sign-in added it, then \(MicrosoftApps.mail)'s SecItemAdd ran")
        }
        let missingBefore = try Self.missing(client: MicrosoftApps.mailClient, in: group, suite: suite)
        report.step("\(MicrosoftApps.mail)'s items not in the group: \(missingBefore.isEmpty ? "none" : missingBefore.joined(separator: ", "))")
        report.step("\(MicrosoftApps.mail) lists \(try Self.list(mail.cache)); \(MicrosoftApps.calendar) lists \(try Self.list(calendar.cache))")
        report.step("\(MicrosoftApps.mail) acquires silently: \(Self.acquire(mail.cache)); \(MicrosoftApps.calendar): \(Self.acquire(calendar.cache))")
        let partial = mailResult.cacheSaveFailures.contains { $0.step == .tokens }
        if partial, !missingBefore.isEmpty {
            report.losses.append(AppLoss(app: MicrosoftApps.mail, lost: missingBefore.count, unit: "items of its response never written", causedBy: [MicrosoftApps.calendar]))
        }

        var missingAfter = missingBefore
        if variant == .deployable {
            suite.clock.advance(by: 60)
            let refreshed = Self.acquire(mail.cache, forceRefresh: true)
            missingAfter = try Self.missing(client: MicrosoftApps.mailClient, in: group, suite: suite)
            report.step("\(MicrosoftApps.mail) forces one silent refresh after its first sign-in: \(refreshed); its items not in the group: \(missingAfter.isEmpty ? "none" : missingAfter.joined(separator: ", "))")
        }
        report.record("partial saves", partial ? 1 : 0)
        report.record("items of the response missing", missingBefore.count)
        report.record("items missing after the refresh", missingAfter.count)
        report.verdict = !partial
            ? "both sign-ins saved every item"
            : missingAfter.isEmpty && variant == .deployable
                ? "the race left \(MicrosoftApps.mail)'s save partial (\(missingBefore.count) items missing); its forced silent refresh redeemed the family token and wrote them"
                : "\(MicrosoftApps.calendar)'s add of the family refresh token between \(MicrosoftApps.mail)'s update and add ended \(MicrosoftApps.mail)'s save (errSecDuplicateItem, -25299): \(missingBefore.count) items of its response were never written, and \(MicrosoftApps.mail) got its token all the same"
        if variant == .deployable {
            report.limits = [
                "the app cannot see the failure (MSAL only logs it): the refresh is made after every first sign-in, one more server round trip",
                "until the refresh, the app's own refresh token is missing: single sign-on rests on the family token",
            ]
        }
        return report
    }

    /// What a result's save did, for people: `saved every item`, or the failed call.
    private static func saved(_ result: AuthenticationResult) -> String {
        result.cacheSaveFailures.isEmpty ? "saved every item" : "save failed (\(result.cacheSaveFailures.map(\.description).joined(separator: "; ")))"
    }

    /// The items of `client` a whole save writes that the group lacks: its own refresh token
    /// and its app metadata (the account record is the family's: either app's save writes it).
    private static func missing(client: String, in group: String, suite: SimulatedSuite) throws -> [String] {
        let items = try suite.store.items(matching: ItemQuery(groups: [group]), limit: nil)
        let expected: [(name: String, type: UInt32, service: String)] = [
            ("its own refresh token", refreshTokenType, "refreshtoken-\(client)--"),
            ("its app metadata", appMetadataType, "appmetadata-\(client)"),
        ]
        var missing = expected.filter { wanted in !items.contains { $0.type == wanted.type && $0.service == wanted.service } }.map(\.name)
        if !items.contains(where: { $0.type == accountType }) { missing.append("the account record") }
        return missing
    }

    /// The account list as MSAL computes it (`allAccounts`), or `no account`.
    private static func list(_ cache: TokenCache) throws -> String {
        let names = try cache.accounts().map(\.username)
        return names.isEmpty ? "no account" : names.joined(separator: ", ")
    }

    /// A silent acquisition's source, or the error's status.
    private static func acquire(_ cache: TokenCache, forceRefresh: Bool = false) -> String {
        do {
            let result = try cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: TokenCache.defaultScopes, forceRefresh: forceRefresh)
            return "a token from \(result.source)\(result.cacheSaveFailures.isEmpty ? "" : ", save failed")"
        } catch {
            return "\(error.status.name) (\(error.status.rawValue))"
        }
    }
}

/// A store that, once armed, runs `interleave` right before the next add `matches` selects:
/// another app's write lands between this app's update (which found nothing) and its add.
final class AddInterleavingStore: ItemStore {
    let base: any ItemStore
    private let matches: @Sendable (StoredItem) -> Bool
    private let armed = Mutex<(@Sendable () -> Void)?>(nil)
    private let ran = Mutex(false)
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(_ base: any ItemStore, matching matches: @escaping @Sendable (StoredItem) -> Bool) {
        self.base = base
        self.matches = matches
    }

    /// Runs `interleave` once, before the next add of a matching item.
    func arm(_ interleave: @escaping @Sendable () -> Void) { armed.withLock { $0 = interleave } }

    /// Whether the armed interleaving ran.
    var interleaved: Bool { ran.withLock { $0 } }

    func add(_ item: StoredItem) throws(StorageError) {
        if matches(item), let interleave = armed.withLock({ armed in defer { armed = nil }; return armed }) {
            interleave()
            ran.withLock { $0 = true }
        }
        try base.add(item)
    }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try base.items(matching: query, limit: limit)
    }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}
