import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// A store whose next read of the team-ID probe, once armed, fails as a locked keychain does
/// (errSecInteractionNotAllowed).
final class LockedProbeStore: ItemStore {
    let base = InMemoryStore()
    private let lockNextProbeRead = Mutex(false)
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    func arm() { lockNextProbeRead.withLock { $0 = true } }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        if query.account == TeamIDProbe.account, lockNextProbeRead.withLock({ locked in defer { locked = false }; return locked }) {
            throw .deviceLocked(.none)
        }
        return try base.items(matching: query, limit: limit)
    }

    func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}

/// MSAL's team-ID probe, IdentityCore `util/ios/MSIDKeychainUtil.m` `appDefaultAccessGroup`
/// (`getTeamId`): once per process, before the token cache's first keychain call (its
/// `MSIDKeychainTokenCache initWithGroup` asks for the team ID), read `{class, account
/// "SDK.ObjC.teamIDHint", service ""}` in every group of the app, and when there is none add it,
/// `kSecAttrAccessibleAlways` and without a group, so it lands in the app's first group.
@Suite("MSAL's team-ID probe")
struct TeamIDProbeTests {
    /// A probe call as `function account 'service' accessibility -> status`.
    static func line(_ call: KeychainCall) -> String {
        "\(call.function.rawValue) \(call.account ?? "-") '\(call.service ?? "-")' \(call.accessibility?.rawValue ?? "-") -> \(call.status.name)"
    }

    func app(
        _ bundleID: String, team: TeamIdentifier, groups: [String] = ["$(AppIdentifierPrefix)com.microsoft.adalcache"],
        store: any ItemStore, trace: KeychainCallTrace? = nil
    ) throws -> TokenCache {
        let identity = try AppIdentity(bundleID: bundleID, teamID: team, entitlements: Entitlements(keychainAccessGroups: groups), source: bundleID)
        var configuration = TokenCacheConfiguration(clientID: Suite.mailClient, familyID: "1")
        configuration.trace = trace
        return try TokenCache(keychain: Keychain(app: identity, store: store), configuration: configuration)
    }

    /// The first cache of an app: a read that finds nothing, then the add, in the shared group
    /// when it is the app's first; the item as MSIDKeychainUtil adds it (no data, no type, no
    /// generic, accessible always). A second cache of that app in this process makes no call.
    @Test(arguments: Backend.memoryAndKeyring)
    func theFirstCacheOfAnAppAddsTheProbeToItsFirstGroupOnce(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let recorder = KeychainTraceTests.Recorder()
        let mail = try app("com.contoso.mail", team: team, store: store, trace: recorder.trace)
        defer { _ = try? store.delete(matching: ItemQuery(groups: [mail.accessGroup])) }
        #expect(recorder.take().map(Self.line) == [
            "SecItemCopyMatching SDK.ObjC.teamIDHint '' - -> errSecItemNotFound",
            "SecItemAdd SDK.ObjC.teamIDHint '' always -> errSecSuccess",
        ])
        let probe = try #require(try mail.keychain.copyMatching(KeychainQuery(group: mail.accessGroup), limit: .all).first)
        #expect(TokenCache.isTeamIDProbe(probe))
        #expect(probe.group == "\(team.rawValue).com.microsoft.adalcache")
        #expect(probe.accessibility == .always)
        #expect(probe.data.isEmpty && probe.generic == nil && probe.type == nil)

        _ = try app("com.contoso.mail", team: team, store: store, trace: recorder.trace)
        #expect(recorder.take().isEmpty)

        // Another app of the team finds it through its own groups: a read, no add.
        _ = try app("com.contoso.calendar", team: team, store: store, trace: recorder.trace)
        #expect(recorder.take().map { "\($0.function.rawValue) \($0.status.name)" } == ["SecItemCopyMatching errSecSuccess"])
        #expect(try mail.keychain.copyMatching(KeychainQuery(account: TeamIDProbe.account), limit: .all).count == 1)
    }

    /// An app whose first group is its own keeps the probe there: the shared group holds only
    /// the cache's items, and a wipe of it leaves the probe.
    @Test(arguments: Backend.memoryAndKeyring)
    func anAppWhoseFirstGroupIsItsOwnKeepsTheProbeThere(_ backend: Backend) throws {
        let store = try backend.makeStore()
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let mail = try app(
            "com.contoso.mail", team: team, groups: ["$(AppIdentifierPrefix)com.contoso.mail.own", "$(AppIdentifierPrefix)com.microsoft.adalcache"],
            store: store)
        let own = "\(team.rawValue).com.contoso.mail.own"
        defer { _ = try? store.delete(matching: ItemQuery(groups: [mail.accessGroup, own])) }
        try mail.signIn(username: "alice@contoso.com")
        #expect(try mail.keychain.copyMatching(KeychainQuery(group: mail.accessGroup), limit: .all).contains(where: TokenCache.isTeamIDProbe) == false)
        try mail.wipeCacheForAllAccounts()
        #expect(try mail.keychain.copyMatching(KeychainQuery(group: own), limit: .all).filter(TokenCache.isTeamIDProbe).count == 1)
    }

    /// A read that fails with errSecInteractionNotAllowed: delete, then add (appDefaultAccessGroup's
    /// `readStatus == errSecInteractionNotAllowed` branch).
    @Test func aLockedProbeIsDeletedThenAddedAgain() throws {
        let store = LockedProbeStore()
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        _ = try app("com.contoso.first", team: team, store: store)
        store.arm()
        let recorder = KeychainTraceTests.Recorder()
        _ = try app("com.contoso.second", team: team, store: store, trace: recorder.trace)
        #expect(recorder.take().map { "\($0.function.rawValue) \($0.status.name)" } == [
            "SecItemCopyMatching errSecInteractionNotAllowed", "SecItemDelete errSecSuccess", "SecItemAdd errSecSuccess",
        ])
        #expect(try store.items(matching: ItemQuery(groups: ["\(team.rawValue).com.microsoft.adalcache"]), limit: nil).count == 1)
    }
}
