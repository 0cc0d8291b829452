import Foundation
import Mitigations
import SharedKeychain
import Synchronization
import TokenCache

/// `account-metadata-race`: MSAL keeps sign-in state in ONE account-metadata item per client
/// (account `authority_map`, service = client ID, type 5001), read-modify-written on every token
/// response and removal without a lock (IdentityCore `MSIDAccountMetadataCacheAccessor`
/// `updateSignInStateForHomeAccountId`). Mail and Calendar are apps of one client ID, so they
/// share the item. Mail's sign-in of bob reads it; Calendar removes alice and writes
/// `signed_out`; Mail writes what it read plus bob: Calendar's `signed_out` is lost, and alice,
/// whose family token Teams keeps, is back in Calendar's list. The interleaving is forced by a
/// store under Mail that runs Calendar's removal right after Mail's read, never by timing.
///
/// Deployable: a retry. After removeAccount the app checks `allAccounts` again (at its next
/// launch) and removes once more if the account came back.
struct AccountMetadataRaceHazard {
    let store: any ItemStore
    let variant: HazardVariant
    static let suiteClient = "0a1b2c3d-9999-4999-8999-999999999999"
    static let bob = "bob@contoso.com"

    func run() throws -> HazardReport {
        let suite = try SimulatedSuite(store: store) { _ in .none }
        let group = suite.group(MicrosoftApps.sharingGroup)
        defer { suite.cleanUp([group]) }
        var report = HazardReport(hazard: Hazard.accountMetadataRace.rawValue, variant: variant, store: store.name)
        report.groups = [group]
        let racing = MetadataInterleavingStore(store)
        let mail = try suite.tokenApp(MicrosoftApps.mail, client: Self.suiteClient, family: "1", store: racing)
        let calendar = try suite.tokenApp(MicrosoftApps.calendar, client: Self.suiteClient, family: "1")
        let teams = try suite.tokenApp(MicrosoftApps.teams, client: MicrosoftApps.teamsClient, family: "1")

        try mail.cache.signIn(username: MicrosoftApps.user)
        _ = try teams.cache.acquireTokenSilent(account: MicrosoftApps.user, scopes: ["chat.read"])
        report.step("\(MicrosoftApps.mail) and \(MicrosoftApps.calendar) share one client ID (\(Self.suiteClient)) and so one account-metadata item; \(MicrosoftApps.mail) signs in \(MicrosoftApps.user); \(MicrosoftApps.teams) redeems the family token and becomes its client_id")
        report.step("\(MicrosoftApps.calendar) lists \(try Self.list(calendar.cache))")

        let during = Mutex<[String]>([])
        racing.arm {
            do {
                let deleted = try calendar.cache.remove(account: MicrosoftApps.user)
                let listed = try Self.list(calendar.cache)
                during.withLock { $0.append("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user) at the same moment: \(deleted) credentials deleted; it lists \(listed)") }
            } catch {
                during.withLock { $0.append("\(MicrosoftApps.calendar) removes \(MicrosoftApps.user) at the same moment: \(error)") }
            }
        }
        report.step("\(MicrosoftApps.mail) signs in \(Self.bob)")
        try mail.cache.signIn(username: Self.bob)
        for line in during.withLock({ $0 }) { report.step(line) }
        let interleaved = racing.interleaved
        report.step("\(MicrosoftApps.mail)'s sign-in of \(Self.bob) completes")
        let after = try calendar.cache.accounts().map(\.username)
        let back = after.contains(MicrosoftApps.user)
        report.step("\(MicrosoftApps.calendar) lists \(after.isEmpty ? "no account" : after.joined(separator: ", "))\(back ? ": \(MicrosoftApps.user), whom the user removed, is back" : "")")
        if interleaved {
            report.emulator("the emulator ordered the calls: \(MicrosoftApps.mail) read the account-metadata item (type 5001, service \(Self.suiteClient)) before \(MicrosoftApps.calendar) wrote signed_out for \(MicrosoftApps.user), and wrote what it had read after it")
        }
        if back {
            report.losses.append(AppLoss(app: MicrosoftApps.calendar, lost: 1, unit: "sign-in states", causedBy: [MicrosoftApps.mail]))
        }

        var stillBack = back
        if variant == .deployable, back {
            let deleted = try calendar.cache.remove(account: MicrosoftApps.user)
            let listed = try calendar.cache.accounts().map(\.username)
            stillBack = listed.contains(MicrosoftApps.user)
            report.step("at its next launch \(MicrosoftApps.calendar) checks allAccounts, finds \(MicrosoftApps.user) it removed, and removes again: \(deleted) credentials deleted; it lists \(listed.isEmpty ? "no account" : listed.joined(separator: ", "))")
        }
        report.record("removed accounts listed again", back ? 1 : 0)
        report.record("removed accounts listed after the retry", stillBack ? 1 : 0)
        report.verdict = stillBack
            ? "\(MicrosoftApps.calendar)'s signed_out for \(MicrosoftApps.user) was lost to \(MicrosoftApps.mail)'s concurrent token response: the account the user removed is listed again"
            : back
                ? "the race lost \(MicrosoftApps.calendar)'s signed_out, and its check at the next launch removed \(MicrosoftApps.user) again"
                : "no sign-in state was lost"
        if variant == .deployable {
            report.limits = [
                "the retry closes the window at the next check, not at once: between the race and the check the removed account is listed",
                "the race stays in the SDK's layout: giving each app of a suite its own client ID gives each its own account-metadata item",
            ]
        }
        return report
    }

    /// The account list as MSAL computes it (`allAccounts`), or `no account`.
    private static func list(_ cache: TokenCache) throws -> String {
        let names = try cache.accounts().map(\.username)
        return names.isEmpty ? "no account" : names.joined(separator: ", ")
    }
}

/// A store that, once armed, runs `interleave` right after answering a read of an
/// account-metadata item (type 5001): another app's write lands between this app's read and its
/// write, as it can on a device, where nothing locks the item.
final class MetadataInterleavingStore: ItemStore {
    /// IdentityCore's `MSIDAccountMetadataCacheItem` type.
    static let accountMetadataType: UInt32 = 5001
    let base: any ItemStore
    private let armed = Mutex<(@Sendable () -> Void)?>(nil)
    private let ran = Mutex(false)
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(_ base: any ItemStore) { self.base = base }

    /// Runs `interleave` once, after the next read of an account-metadata item.
    func arm(_ interleave: @escaping @Sendable () -> Void) { armed.withLock { $0 = interleave } }

    /// Whether the armed interleaving ran.
    var interleaved: Bool { ran.withLock { $0 } }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        let found = try base.items(matching: query, limit: limit)
        if query.type == Self.accountMetadataType, let interleave = armed.withLock({ armed in defer { armed = nil }; return armed }) {
            interleave()
            ran.withLock { $0 = true }
        }
        return found
    }

    func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}
