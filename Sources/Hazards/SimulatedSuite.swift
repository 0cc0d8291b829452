import Device
import Foundation
import Mitigations
import SharedKeychain
import Simulation
import TokenCache

/// Apps of one freshly made-up team sharing one store, for one hazard run: each a
/// ``SimulatedApp`` of origin `simulated`, its keychain made by ``AppKeychains`` on the suite's
/// store under the run's policy (mitigations on or off) and, when given a client ID, its own
/// ``TokenCache``. The team is new for every run, so runs on a shared keyring never see each
/// other's items; ``cleanUp(_:)`` removes what the run left.
final class SimulatedSuite: Sendable {
    let store: any ItemStore
    let team: TeamIdentifier
    let policy: MitigationPolicy
    /// Stands still at the run's start; the hazard moves it (to expire access tokens).
    let clock = SimulationClock(fixedAt: Date())

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
    /// - Parameters:
    ///   - store: the store under the app, when not the suite's (a wrapper that interleaves).
    ///   - tokens: the app's MSAL configuration, or nil for an app without a token cache.
    func app(
        _ bundleID: String, groups: [String], store: (any ItemStore)? = nil, tokens: TokenCacheConfiguration? = nil
    ) throws -> SimulatedApp {
        let access = try groups.map { try AccessGroup(teamID: team, identifier: $0) }
        let identity = try AppIdentity(bundleID: bundleID, teamID: team, keychainAccessGroups: access)
        return try simulate(identity, store: store ?? self.store, policy: policy, tokens: tokens)
    }

    /// `identity` as an app of the run: on `store` under `policy`, on the suite's clock.
    func simulate(
        _ identity: AppIdentity, store: any ItemStore, policy: MitigationPolicy, tokens: TokenCacheConfiguration?
    ) throws(TokenCacheError) -> SimulatedApp {
        try SimulatedApp(
            ResolvedApp(identity: identity, settings: nil, origin: .simulated),
            keychains: AppKeychains(store: store, policy: policy), clock: clock, tokens: tokens)
    }

    /// An MSAL app of the shared cache group `com.microsoft.adalcache`, its items of MSAL's class
    /// unless `accessibility` says otherwise.
    /// - Parameters:
    ///   - ownGroup: keep the tokens in the app's own app-ID group instead.
    ///   - singleFRT: the app's `sfrt_v2` flight is on (single-FRT mode for the whole group).
    ///   - store: the store under the app, when not the suite's (a wrapper that interleaves).
    ///   - sdk: MSAL, or ADAL (its sign-ins write ADAL's legacy items).
    func tokenApp(
        _ bundleID: String, client: String, family: String?, accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        ownGroup: Bool = false, singleFRT: Bool = false, store: (any ItemStore)? = nil, sdk: TokenCacheSDK = .msal
    ) throws -> (app: SimulatedApp, cache: TokenCache) {
        var configuration = TokenCacheConfiguration(
            clientID: client, keychainSharingGroup: ownGroup ? "\(team.rawValue).\(bundleID)" : TokenCacheConfiguration.defaultSharingGroup,
            familyID: family, accessibility: accessibility, sdk: sdk)
        if singleFRT { configuration.singleFRTFlight = .on }
        let app = try app(bundleID, groups: [TokenCacheConfiguration.defaultSharingGroup], store: store, tokens: configuration)
        return (app, try app.tokenCache())
    }

    /// `app` signs `user` in through `broker` with its own redirect URI; whether the broker prompted.
    func brokerSignIn(_ app: (app: SimulatedApp, cache: TokenCache), broker: BrokerService, user: String) throws -> Bool {
        let request = try app.cache.brokerRequest(loginHint: user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: app.app.bundleID))
        let answer = try broker.handle(request.url, caller: app.app.bundleID)
        _ = try app.cache.acceptBrokerResponse(answer.url, to: request)
        return answer.prompted
    }

    /// The groups a run leaves: each app's token group (its broker key too) and app-ID group,
    /// and the broker's group.
    func perAppGroups(_ apps: [(app: SimulatedApp, cache: TokenCache)], broker: BrokerService) -> [String] {
        Array(Set(apps.flatMap { [$0.cache.accessGroup, $0.app.keychain.app.appIDGroup.rawValue] } + [broker.cache.accessGroup])).sorted()
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

/// The simulated apps the token hazards use: a suite sharing MSAL's cache group.
enum MicrosoftApps {
    static let mail = "com.contoso.mail"
    static let calendar = "com.contoso.calendar"
    static let teams = "com.contoso.teams"
    /// An older app of the suite still built with ADAL.
    static let expenses = "com.contoso.expenses"
    static let authenticator = "com.microsoft.azureauthenticator"
    static let mailClient = "0a1b2c3d-1111-4111-8111-111111111111"
    static let calendarClient = "0a1b2c3d-2222-4222-8222-222222222222"
    static let teamsClient = "0a1b2c3d-4444-4444-8444-444444444444"
    static let authenticatorClient = "4813382a-8fa7-425e-ab75-3b753aab3abb"
    static let user = "alice@contoso.com"
    static let sharingGroup = "com.microsoft.adalcache"
}
