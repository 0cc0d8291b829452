import Foundation
import Device
import KeychainTestSupport
import SharedKeychain
import Simulation
import Synchronization
import Testing
import TokenCache
@testable import LoadGeneration

/// A token run in a group that already holds accounts (`--group G --allow-existing-data`, as
/// `scripts/compare-peers.sh` signs new users into a group of 10,000) reads what its own users
/// hold, never the whole group: a whole-group read of 50,000 items took gnome-keyring longer
/// than the call's deadline, and every run failed before its first sign-in.
@Suite("A run in a group of others' data reads only its own users or items")
struct OwnUsersCheckTests {
    /// An in-memory store that counts the items its reads return.
    final class CountingStore: ItemStore {
        let base = InMemoryStore()
        let itemsRead = Atomic<Int>(0)

        var name: String { "counting" }
        var userAuthentication: AuthenticationProvider? { base.userAuthentication }
        func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
        func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
            let items = try base.items(matching: query, limit: limit)
            itemsRead.add(items.count, ordering: .relaxed)
            return items
        }
        func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
            try base.update(matching: query, with: change, at: date)
        }
        func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
    }

    /// One app signing users in (a removal looks its user up among all accounts, as MSAL's
    /// caller does with the account list) in a named group that may hold other data; `apps: 2`
    /// gives an app of the suite the run does not start, to sign the existing users in.
    func configuration(team: String, apps: Int = 1) throws -> LoadConfiguration {
        LoadConfiguration(apps: apps, workload: .token, mix: try OperationMix(parsing: "signin=100"), itemsPerApp: 4,
                          operations: 30, warmup: 0, team: team, group: "\(team).com.contoso.shared", allowExistingData: true)
    }

    /// The items a run's reads return, in a group where `existing` users were signed in first
    /// (by the same client, as a prefill does).
    func itemsRead(existing: Int) throws -> (read: Int, report: LoadReport) {
        let store = CountingStore()
        let team = TestBackend.uniqueTeamID()
        let configuration = try configuration(team: team)
        let suite = try self.configuration(team: team, apps: 2)
        let app = try SimulatedApp(try suite.app(1), keychains: AppKeychains(store: store, policy: .none),
                                   clock: SimulationClock(), tokens: suite.tokenConfiguration)
        let cache = try app.tokenCache()
        for index in 0..<existing { try cache.signIn(username: "existing\(index)@contoso.com") }
        store.itemsRead.store(0, ordering: .relaxed)
        let report = try LoadRunner(configuration: configuration, store: store).runInThreads()
        let read = store.itemsRead.load(ordering: .relaxed)
        #expect(try cache.accountStates().count == existing, "the run's clean-up took only its own users' items")
        return (read, report)
    }

    @Test func theRunReadsNoAccountItHasNotTouched() throws {
        let empty = try itemsRead(existing: 0)
        let full = try itemsRead(existing: 40)
        #expect(empty.report.passed && full.report.passed, "\(empty.report.consistency) \(full.report.consistency)")
        #expect(full.report.consistency.ownUsersOnly)
        #expect(full.report.consistency.accountsChecked == empty.report.consistency.accountsChecked)
        #expect(full.report.consistency.accountsListed == empty.report.consistency.accountsListed)
        // The same calls on the same users. The client's shared items (its app metadata and
        // account metadata), which the existing users' sign-ins made, are there from the start.
        #expect(full.read <= empty.read + 2, "\(full.read) items read beside \(empty.read) in an empty group")
    }

    /// An items run in such a group reads the load's items (their service), not the group's
    /// others, before or after the run, and its clean-up leaves those others alone.
    @Test func anItemsRunReadsOnlyTheLoadsItems() throws {
        func itemsRead(existing: Int) throws -> (read: Int, report: LoadReport) {
            let store = CountingStore()
            let team = TestBackend.uniqueTeamID()
            let configuration = LoadConfiguration(
                apps: 1, mix: try OperationMix(parsing: "write=60,read=20,remove=20"), itemsPerApp: 4, operations: 30, warmup: 0,
                team: team, group: "\(team).com.contoso.shared", allowExistingData: true)
            // An app of the suite the run does not start (the run has one app, app 0).
            let other = Keychain(app: try configuration.identity(ofApp: 1), store: store)
            for index in 0..<existing {
                _ = try other.add(NewItem(account: "other\(index)", service: "com.contoso.notes", group: configuration.group, data: Data("x".utf8)))
            }
            store.itemsRead.store(0, ordering: .relaxed)
            let report = try LoadRunner(configuration: configuration, store: store).runInThreads()
            let read = store.itemsRead.load(ordering: .relaxed)
            #expect(try other.copyAll(.all(in: configuration.group)).count == existing, "the clean-up took only the load's items")
            return (read, report)
        }
        let empty = try itemsRead(existing: 0)
        let full = try itemsRead(existing: 40)
        #expect(empty.report.passed && full.report.passed, "\(empty.report.consistency) \(full.report.consistency)")
        #expect(full.report.consistency.ownItemsOnly)
        #expect(full.report.consistency.keysChecked == empty.report.consistency.keysChecked)
        #expect(full.report.consistency.existingItems == 0 && full.report.consistency.foreignItems == 0)
        // The workers read by key, and the clean-up by the app's provenance: none of the 40.
        #expect(full.read == empty.read, "\(full.read) items read beside \(empty.read) in an empty group")
    }

    /// The account list's verdict for each user, from their own items, is the whole list's.
    @Test func aUsersStateListsAsTheAccountListDoes() throws {
        let store = CountingStore()
        let configuration = try configuration(team: TestBackend.uniqueTeamID())
        let app = try SimulatedApp(try configuration.app(0), keychains: AppKeychains(store: store, policy: .none),
                                   clock: SimulationClock(), tokens: configuration.tokenConfiguration)
        let cache = try app.tokenCache()
        let users = (0..<6).map { "user\($0)@contoso.com" }
        for user in users { try cache.signIn(username: user) }
        _ = try cache.remove(account: users[1])
        _ = try cache.wipeAccount(users[2])
        let listed = Set(try cache.accounts().map { $0.username })
        let states = try cache.accountStates(usernames: users + ["never@contoso.com"])
        #expect(Set(states.filter(\.isListed).map(\.username)) == listed)
        #expect(Set(states.map(\.username)) == Set(try cache.accountStates().map(\.username)))
        #expect(listed.count == 4 && !listed.contains(users[1]) && !listed.contains(users[2]))
    }
}
