import Foundation
import SharedKeychain
@testable import TokenCache

/// A suite of apps of one team on one store, with a hand-moved clock. Mail and calendar are
/// first-party apps of family "1"; legacy is in no family; all three are entitled to the
/// shared group. Each suite has its own team ID, so suites never see each other's items.
struct Suite {
    static let mailClient = "0a1b2c3d-1111-4111-8111-111111111111"
    static let calendarClient = "0a1b2c3d-2222-4222-8222-222222222222"
    static let legacyClient = "0a1b2c3d-3333-4333-8333-333333333333"

    let store: any ItemStore
    let team: TeamIdentifier
    let clock = TestClock.fixedForTests()
    /// `<TEAMID>.com.microsoft.adalcache`.
    let group: String
    let mail: TokenCache
    let calendar: TokenCache
    let legacy: TokenCache

    init(_ backend: Backend, store: (any ItemStore)? = nil) throws {
        self.store = try store ?? backend.makeStore()
        team = try TeamIdentifier(Backend.uniqueTeamID())
        group = "\(team.rawValue).com.microsoft.adalcache"
        mail = try Self.makeApp("com.contoso.mail", client: Self.mailClient, family: "1", store: self.store, team: team, clock: clock)
        calendar = try Self.makeApp("com.contoso.calendar", client: Self.calendarClient, family: "1", store: self.store, team: team, clock: clock)
        legacy = try Self.makeApp("com.contoso.legacy", client: Self.legacyClient, family: nil, store: self.store, team: team, clock: clock)
    }

    /// Another app of the team; `entitled: false` leaves the shared group out of its entitlements.
    /// `issuer` is the emulated server it talks to.
    func app(
        _ bundleID: String, client: String, family: String? = nil, entitled: Bool = true, issuer: EmulatedIssuer = EmulatedIssuer()
    ) throws -> TokenCache {
        try Self.makeApp(bundleID, client: client, family: family, entitled: entitled, issuer: issuer, store: store, team: team, clock: clock)
    }

    private static func makeApp(
        _ bundleID: String, client: String, family: String?, entitled: Bool = true, issuer: EmulatedIssuer = EmulatedIssuer(),
        store: any ItemStore, team: TeamIdentifier, clock: TestClock
    ) throws -> TokenCache {
        let groups = entitled ? ["$(AppIdentifierPrefix)com.microsoft.adalcache"] : []
        let app = try AppIdentity(bundleID: bundleID, teamID: team, entitlements: Entitlements(keychainAccessGroups: groups, applicationIdentifier: "\(team.rawValue).\(bundleID)"), source: bundleID)
        return try TokenCache(
            keychain: Keychain(app: app, store: store, now: clock.function),
            configuration: TokenCacheConfiguration(clientID: client, familyID: family),
            issuer: issuer, now: clock.function)
    }

    /// Every item of the shared group, in creation order.
    func items() throws -> [KeychainItem] {
        do { return try mail.keychain.copyMatching(KeychainQuery(group: group), limit: .all) } catch {
            guard case .itemNotFound = error else { throw error }
            return []
        }
    }

    /// The shared group's items but MSAL's team-ID probe (which the suite's first app added
    /// there, its first access group) and the group's broker key (a `kSecClassKey` item): the
    /// token items the cache wrote.
    func cacheItems() throws -> [KeychainItem] {
        try items().filter { !TokenCache.isTeamIDProbe($0) && $0.itemClass != .key }
    }

    /// The item at account + service, if any.
    func item(account: String, service: String) throws -> KeychainItem? {
        try items().first { $0.account == account && $0.service == service }
    }

    /// The JSON object an item holds.
    func json(_ item: KeychainItem?) -> [String: JSONValue] {
        item.flatMap { CacheJSON.object(from: $0.data) } ?? [:]
    }

    /// Rewrites the JSON of the item at account + service through the keychain.
    func edit(account: String, service: String, _ change: (inout [String: JSONValue]) -> Void) throws {
        guard let item = try item(account: account, service: service) else { throw TestFailure("no item \(account) / \(service)") }
        var object = json(item)
        change(&object)
        try mail.keychain.update(KeychainQuery(group: group, account: account, service: service), with: ItemChange(data: CacheJSON.data(object)))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
