import Foundation
import SharedKeychain
import TokenCache

/// Apps of one freshly made-up team sharing one store, for one hazard run: each app has its
/// own ``Keychain`` (through a ``MitigatedStore`` view when the run is mitigated) and, when
/// given a client ID, its own ``TokenCache``. The team is new for every run, so runs on a
/// shared keyring never see each other's items; ``cleanUp()`` removes what the run left.
final class SimulatedSuite: Sendable {
    let store: any ItemStore
    let team: TeamIdentifier
    let policy: MitigationPolicy
    let clock = ScenarioClock()

    /// - Parameter policy: built from the team's groups; `.none` for an unmitigated run.
    init(store: any ItemStore, policy: (_ team: TeamIdentifier) -> MitigationPolicy) throws {
        self.store = store
        let team = try TeamIdentifier(Self.randomTeamID())
        self.team = team
        self.policy = policy(team)
    }

    /// `<team>.<identifier>`.
    func group(_ identifier: String) -> String { "\(team.rawValue).\(identifier)" }

    /// An app entitled to `groups` (identifiers without the team prefix), in that order.
    func app(_ bundleID: String, groups: [String]) throws -> SimulatedApp {
        let access = try groups.map { try AccessGroup(teamID: team, identifier: $0) }
        let identity = try AppIdentity(bundleID: bundleID, teamID: team, keychainAccessGroups: access)
        let view = MitigatedStore(base: store, app: bundleID, policy: policy, now: clock.function)
        return SimulatedApp(keychain: Keychain(app: identity, store: view, now: clock.function), view: view)
    }

    /// An MSAL app of the shared cache group `com.microsoft.adalcache`.
    /// - Parameter ownGroup: keep the tokens in the app's own app-ID group instead.
    func tokenApp(
        _ bundleID: String, client: String, family: String?, accessibility: Accessibility = .whenUnlocked, ownGroup: Bool = false
    ) throws -> (app: SimulatedApp, cache: TokenCache) {
        let app = try app(bundleID, groups: [TokenCacheConfiguration.defaultSharingGroup])
        let cache = try TokenCache(
            keychain: app.keychain,
            configuration: TokenCacheConfiguration(
                clientID: client, keychainSharingGroup: ownGroup ? "\(team.rawValue).\(bundleID)" : TokenCacheConfiguration.defaultSharingGroup,
                familyID: family, accessibility: accessibility),
            now: clock.function)
        return (app, cache)
    }

    /// Every item of `group` (a full group name), straight from the store.
    func items(in group: String) throws(StorageError) -> [StoredItem] {
        try store.items(matching: ItemQuery(groups: [group]), limit: nil)
    }

    /// The journal of `group`.
    func audit(of group: String) throws(StorageError) -> [AuditEntry] {
        try AuditJournal(store: store).entries(group: group)
    }

    /// Deletes the run's items in `groups` and their journals.
    func cleanUp(_ groups: [String]) {
        let journals = groups.map(AuditJournal.journalGroup(for:))
        _ = try? store.delete(matching: ItemQuery(groups: groups + journals))
    }

    /// `H` and nine random upper-case letters or digits.
    static func randomTeamID() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        return "H" + String((0..<9).map { _ in alphabet.randomElement() ?? "H" })
    }
}

/// One simulated app: its keychain, and the mitigated view of the store under it.
struct SimulatedApp: Sendable {
    let keychain: Keychain
    let view: MitigatedStore

    var bundleID: String { keychain.app.bundleID }
}
