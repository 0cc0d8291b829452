import Foundation
import Mitigations
import SharedKeychain
import Synchronization
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
    func app(_ bundleID: String, groups: [String], store: (any ItemStore)? = nil) throws -> SimulatedApp {
        let access = try groups.map { try AccessGroup(teamID: team, identifier: $0) }
        let identity = try AppIdentity(bundleID: bundleID, teamID: team, keychainAccessGroups: access)
        let view = MitigatedStore(base: store ?? self.store, app: bundleID, policy: policy, now: clock.function)
        return SimulatedApp(keychain: Keychain(app: identity, store: view, now: clock.function), view: view)
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
        let app = try app(bundleID, groups: [TokenCacheConfiguration.defaultSharingGroup], store: store)
        var configuration = TokenCacheConfiguration(
            clientID: client, keychainSharingGroup: ownGroup ? "\(team.rawValue).\(bundleID)" : TokenCacheConfiguration.defaultSharingGroup,
            familyID: family, accessibility: accessibility, sdk: sdk)
        if singleFRT { configuration.singleFRTFlight = .on }
        let cache = try TokenCache(keychain: app.keychain, configuration: configuration, now: clock.function)
        return (app, cache)
    }

    /// `app` signs `user` in through `broker` with its own redirect URI; whether the broker prompted.
    func brokerSignIn(_ app: (app: SimulatedApp, cache: TokenCache), broker: BrokerService, user: String) throws -> Bool {
        let request = try app.cache.brokerRequest(loginHint: user, scopes: TokenCache.defaultScopes, redirectURI: RedirectURI.msalDefault(bundleID: app.app.bundleID))
        let answer = try broker.handle(request.url, caller: app.app.bundleID)
        _ = try app.cache.acceptBrokerResponse(answer.url, to: request)
        return answer.prompted
    }

    /// The groups a per-app-group run leaves: each app's token group and app-ID group (broker
    /// keys), and the broker's group.
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

/// One simulated app: its keychain, and the mitigated view of the store under it.
struct SimulatedApp: Sendable {
    let keychain: Keychain
    let view: MitigatedStore

    var bundleID: String { keychain.app.bundleID }
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

/// Runs one body per app on its own thread, all released at the same instant, as apps that
/// start together; returns the results in the apps' order.
enum ConcurrentApps {
    static func run<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        let results = Mutex<[Int: Result]>([:])
        let group = DispatchGroup()
        let start = Date().addingTimeInterval(0.05)
        for index in 0..<count {
            group.enter()
            let thread = Thread {
                Thread.sleep(until: start)
                let result = body(index)
                results.withLock { $0[index] = result }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        return results.withLock { collected in (0..<count).compactMap { collected[$0] } }
    }
}

/// The clock the simulated apps share: starts at the real time, moved by the scenario (to
/// expire access tokens between background refreshes).
final class ScenarioClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date()) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }

    var function: @Sendable () -> Date { { [self] in now } }
}
