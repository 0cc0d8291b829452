import Foundation
import KeychainStorage
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// Another app racing the writes: it adds the key just before our first add (so ours is a
/// duplicate), then wipes the group just before our next update (so that finds nothing), once.
final class RacingStore: ItemStore {
    let base = InMemoryStore()
    private let raced = Mutex((added: false, wiped: false))
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    func add(_ item: StoredItem) throws(StorageError) {
        // The cache's first item add (not MSAL's team-ID probe, which has no type).
        let first = item.type != nil && raced.withLock { state in defer { state.added = true }; return !state.added }
        if first { try base.add(item) }
        try base.add(item)
    }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try base.items(matching: query, limit: limit)
    }

    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        let wipe = raced.withLock { state in
            defer { if state.added { state.wiped = true } }
            return state.added && !state.wiped
        }
        if wipe { _ = try base.delete(matching: ItemQuery(groups: query.groups)) }
        return try base.update(matching: query, with: change, at: date)
    }

    func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try base.delete(matching: query)
    }
}

@Suite("Writes racing other apps")
struct WriteRaceTests {
    /// Found by the token load test under load: update (nothing), add (another app's add
    /// won). MSAL's `saveData` stops there (no second update): the account-metadata update is
    /// reported and the save goes on (`updateAccountMetadataForHomeAccountId` only logs it);
    /// the next write, which a wipe meets, still writes. The token is returned.
    @Test func aWriteThatLosesToAnAddFailsThatItemAndTheSaveGoesOn() throws {
        let store = RacingStore()
        let suite = try Suite(.memory, store: store)
        let result = try suite.mail.signIn(username: "alice@contoso.com", tenant: "contoso.com")
        #expect(result.source == .interactive)
        let failure = try #require(result.cacheSaveFailures.only)
        #expect(failure.step == .accountMetadata)
        #expect(failure.call?.function == .add)
        #expect(failure.status == .duplicateItem)
        #expect(try suite.calendar.accounts().map(\.username) == ["alice@contoso.com"])
    }
}
