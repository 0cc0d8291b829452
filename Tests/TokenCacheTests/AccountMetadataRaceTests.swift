import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// A store that, once armed, runs `interleave` right after answering a read of an
/// account-metadata item (type 5001): another app's write lands between this app's read and its
/// write, as it can on a device, where nothing locks the item.
final class InterleavingStore: ItemStore {
    let base: any ItemStore
    private let armed = Mutex<(@Sendable () -> Void)?>(nil)
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(_ base: any ItemStore) { self.base = base }

    func arm(_ interleave: @escaping @Sendable () -> Void) { armed.withLock { $0 = interleave } }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        let found = try base.items(matching: query, limit: limit)
        if query.type == ItemType.accountMetadata, let interleave = armed.withLock({ armed in defer { armed = nil }; return armed }) {
            interleave()
        }
        return found
    }

    func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}

/// MSAL's account metadata is one item per client, read-modify-written without a lock
/// (IdentityCore MSIDAccountMetadataCacheAccessor updateSignInStateForHomeAccountId,
/// MSIDMetadataCache saveAccountMetadataCacheItem). Apps of a suite share the client ID, so they
/// share the item, and one app's write can undo another's: the lost update is the SDK's, not the
/// emulator's.
@Suite("The account-metadata race of one client ID")
struct AccountMetadataRaceTests {
    static let suiteClient = "0a1b2c3d-9999-4999-8999-999999999999"

    /// Mail's token response read the item before Calendar removed alice and wrote it after:
    /// Calendar's `signed_out` is lost, and alice, removed in Calendar, is back in its list
    /// through the family token another app of the family wrote.
    @Test(arguments: Backend.memoryAndKeyring)
    func aSignInThatRacesARemovalBringsTheRemovedAccountBack(_ backend: Backend) throws {
        let base = try backend.makeStore()
        let racing = InterleavingStore(base)
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let clock = TestClock.fixedForTests()
        func app(_ bundleID: String, client: String, store: any ItemStore) throws -> TokenCache {
            let identity = try AppIdentity(
                bundleID: bundleID, teamID: team,
                entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"]), source: bundleID)
            return try TokenCache(
                keychain: Keychain(app: identity, store: store, now: clock.function),
                configuration: TokenCacheConfiguration(clientID: client, familyID: "1"), now: clock.function)
        }
        let mail = try app("com.contoso.mail", client: Self.suiteClient, store: racing)
        let calendar = try app("com.contoso.calendar", client: Self.suiteClient, store: base)
        let tasks = try app("com.contoso.tasks", client: "0a1b2c3d-7777-4777-8777-777777777777", store: base)
        defer { _ = try? base.delete(matching: ItemQuery(groups: [mail.accessGroup, IntentJournal.journalGroup(for: mail.accessGroup)])) }

        try mail.signIn(username: "alice@contoso.com")
        // Tasks redeems the family token and so becomes its client_id: Calendar's removal,
        // which takes the suite client's tokens, leaves it.
        _ = try tasks.acquireTokenSilent(account: "alice@contoso.com", scopes: ["tasks.read"])

        // Without a race, Calendar's removal hides alice from Calendar.
        try calendar.remove(account: "alice@contoso.com")
        #expect(try calendar.accounts().isEmpty)

        // Mail signs bob in; its read of the metadata item lands before Calendar's next
        // removal of alice and its write after it.
        try calendar.signIn(username: "alice@contoso.com")
        _ = try tasks.acquireTokenSilent(account: "alice@contoso.com", scopes: ["tasks.read"], forceRefresh: true)
        racing.arm { _ = try? calendar.remove(account: "alice@contoso.com") }
        try mail.signIn(username: "bob@contoso.com")

        // The suite's item holds bob signed in and alice as Mail last read her: signed in.
        let metadata = try #require(try mail.accountMetadata.readAccountMetadata()?.value)
        #expect(metadata.entry(for: try #require(try calendar.accounts().first { $0.username == "alice@contoso.com" }).homeAccountID)?.state == .signedIn)
        // So Calendar, which removed alice, lists her again.
        #expect(try calendar.accounts().map(\.username).sorted() == ["alice@contoso.com", "bob@contoso.com"])
    }
}
