import Foundation
import KeychainTestSupport
import SharedKeychain
import Synchronization
import Testing
import TokenCache
@testable import LoadGeneration

@Suite("Operation mixes")
struct OperationMixTests {
    @Test func parsesAndDraws() throws {
        let mix = try OperationMix(parsing: "read=70, write=20,remove=10")
        #expect(mix.percentages == [.read: 70, .write: 20, .remove: 10])
        #expect(mix.description == "read=70,write=20,remove=10")
        let draws = (0..<100).map { mix.operation(for: $0) }
        #expect(draws.filter { $0 == .read }.count == 70)
        #expect(draws.filter { $0 == .write }.count == 20)
        #expect(draws.filter { $0 == .remove }.count == 10)
    }

    @Test(arguments: ["read=50", "read=50,write=60", "read=100,bogus=0", "read=x", "read=50,read=50", "read", "read=-10,write=110"])
    func rejectsBadMixes(_ text: String) {
        #expect(throws: LoadError.self) { try OperationMix(parsing: text) }
    }
}

@Suite("Consistency check")
struct ConsistencyTests {
    let configuration = LoadConfiguration(apps: 1, mix: try! OperationMix(parsing: "write=100"), itemsPerApp: 3)

    func item(key: Int, version: Int) -> KeychainItem {
        KeychainItem(group: configuration.group, account: LoadConfiguration.account(app: 0, key: key), service: "load",
                     creationDate: Date(), modificationDate: Date(), data: ItemValue(app: 0, key: key, version: version).encoded(size: 64))
    }

    func entry(_ kind: JournalEntry.Kind, key: Int = 0, version: Int = 0, at time: UInt64) -> JournalEntry {
        JournalEntry(kind: kind, key: key, version: version, start: time, end: time + 5)
    }

    @Test func valuesRoundTrip() {
        let value = ItemValue(app: 3, key: 41, version: 7)
        #expect(ItemValue(decoding: value.encoded(size: 256)) == value)
        #expect(value.encoded(size: 256).count == 256)
        #expect(ItemValue(decoding: Data("garbage".utf8)) == nil)
    }

    @Test func keptWritesAndDeletesAreConsistent() {
        let journal = [entry(.write, key: 0, version: 1, at: 10), entry(.write, key: 1, version: 1, at: 20), entry(.delete, key: 1, version: 1, at: 30)]
        let report = ConsistencyReport(journals: [0: journal], finalItems: [item(key: 0, version: 1)], configuration: configuration)
        #expect(report.isConsistent)
        #expect(report.keysChecked == 3)
        #expect(report.itemsPresent == 1)
    }

    @Test func olderVersionOrMissingItemIsALostUpdate() {
        let journal = [entry(.write, key: 0, version: 1, at: 10), entry(.write, key: 0, version: 2, at: 20), entry(.write, key: 1, version: 1, at: 30)]
        let report = ConsistencyReport(journals: [0: journal], finalItems: [item(key: 0, version: 1)], configuration: configuration)
        #expect(report.lostUpdates == 2)
        #expect(!report.isConsistent)
    }

    @Test func aLaterWipeExplainsAMissingItem() {
        let journal = [entry(.write, key: 0, version: 1, at: 10), entry(.wipe, at: 12)]
        let report = ConsistencyReport(journals: [0: journal], finalItems: [], configuration: configuration)
        #expect(report.isConsistent)
        let early = ConsistencyReport(journals: [0: [entry(.wipe, at: 1), entry(.write, key: 0, version: 1, at: 10)]], finalItems: [], configuration: configuration)
        #expect(early.lostUpdates == 1)
    }

    @Test func anItemBackAfterItsDeleteIsResurrected() {
        let journal = [entry(.write, key: 2, version: 1, at: 10), entry(.delete, key: 2, version: 1, at: 20)]
        let report = ConsistencyReport(journals: [0: journal], finalItems: [item(key: 2, version: 1)], configuration: configuration)
        #expect(report.resurrectedItems == 1)
    }

    @Test func strangersInTheGroupAreCounted() {
        var stranger = item(key: 0, version: 1)
        stranger.account = "someone-else"
        let report = ConsistencyReport(journals: [:], finalItems: [stranger], configuration: configuration)
        #expect(report.foreignItems == 1)
    }
}

@Suite("Load runs in threads")
struct ThreadedLoadTests {
    static let stores: [String] = ["memory", "secret-service"]

    func store(_ name: String) throws -> any ItemStore {
        name == "memory" ? InMemoryStore() : try TestKeyring.store(.collectionPerGroup)
    }

    @Test(arguments: stores)
    func mixedRunLosesNothing(_ storeName: String) throws {
        let configuration = LoadConfiguration(
            apps: 3, mix: try OperationMix(parsing: "read=40,write=25,update=10,remove=10,list=10,wipe=5"),
            itemsPerApp: 10, valueSize: 64, operations: storeName == "memory" ? 400 : 60, warmup: 0, seed: 7,
            team: "LOADTST\(Int.random(in: 100...999))")
        let runner = try LoadRunner(configuration: configuration, store: store(storeName))
        let report = try runner.runInThreads()
        #expect(report.totalOperations == 3 * (configuration.operations ?? 0))
        #expect(report.unexpectedErrors == 0, "\(report.errorsByStatus)")
        #expect(report.consistency.isConsistent, "\(report.consistency)")
        #expect(report.consistency.keysChecked == 30)
        #expect(Set(report.operations.map(\.operation)) == [.read, .write, .update, .remove, .list, .wipe])
        #expect(report.operations.allSatisfy { $0.p50 <= $0.p99 && $0.p99 <= $0.max })
        #expect(report.backend == (storeName == "memory" ? "memory" : "secret-service"))
    }

    @Test(arguments: stores)
    func tokenAcquiresSignInAgainAfterWipes(_ storeName: String) throws {
        let configuration = LoadConfiguration(
            apps: 3, mix: try OperationMix(parsing: "acquire=50,write=30,wipe=20"), itemsPerApp: 5, valueSize: 64,
            operations: storeName == "memory" ? 300 : 40, warmup: 0, seed: 11, team: "LOADTST\(Int.random(in: 100...999))")
        let report = try LoadRunner(configuration: configuration, store: store(storeName)).runInThreads()
        #expect(report.unexpectedErrors == 0, "\(report.errorsByStatus)")
        #expect(report.consistency.isConsistent, "\(report.consistency)")
        let acquire = try #require(report.operations.first { $0.operation == .acquire })
        // Every app signs in at its first acquire, and again after wipes took its tokens.
        let signIns = acquire.expectedOutcomes["interaction_required"] ?? 0
        #expect(signIns >= 3)
        #expect(signIns < acquire.count)
        #expect(report.consistency.foreignItems == 0)
    }

    @Test func writesOnlyRunKeepsEveryLastVersion() throws {
        let configuration = LoadConfiguration(apps: 4, mix: try OperationMix(parsing: "write=100"), itemsPerApp: 5, valueSize: 64,
                                              operations: 200, warmup: 0, team: "LOADTST001")
        let store = InMemoryStore()
        let report = try LoadRunner(configuration: configuration, store: store).runInThreads()
        #expect(report.consistency.itemsPresent == 20)
        #expect(report.consistency.isConsistent)
        #expect(report.errorsByStatus.isEmpty)
    }
}

@Suite("Load report verdict")
struct LoadReportVerdictTests {
    let configuration = LoadConfiguration(apps: 1, mix: try! OperationMix(parsing: "read=100"), itemsPerApp: 1, operations: 1)

    @Test func aRunThatMeasuredNothingDoesNotPass() {
        let report = LoadReport(configuration: configuration, mode: .threads, backend: "memory",
                                results: [WorkerResult(app: 0)], consistency: ConsistencyReport())
        #expect(report.totalOperations == 0)
        #expect(!report.passed)
    }

    @Test func aRunWhoseGroupCouldNotBeListedDoesNotPassButKeepsItsMeasurements() {
        var result = WorkerResult(app: 0)
        result.record(.read, nanoseconds: 1_000, start: 1, end: 2)
        let report = LoadReport(configuration: configuration, mode: .threads, backend: "memory", results: [result],
                                consistency: ConsistencyReport(), checkFailure: "the daemon is gone")
        #expect(report.totalOperations == 1)
        #expect(!report.passed)
    }

    @Test func callsThatFailedWhileReconnectingAreReportedButNotUnexpected() {
        var result = WorkerResult(app: 0)
        result.record(.read, nanoseconds: 1_000, start: 1, end: 2)
        result.errors[.read] = ["errSecNotAvailable": 1]
        result.reconnects = 2
        result.reconnectErrors = ["errSecNotAvailable": 1]
        let report = LoadReport(configuration: configuration, mode: .threads, backend: "memory", results: [result],
                                consistency: ConsistencyReport())
        #expect(report.reconnects == 2)
        #expect(report.reconnectErrors == ["errSecNotAvailable": 1])
        #expect(report.unexpectedErrors == 0)
        #expect(report.passed)
    }
}

@Suite("Token workload")
struct TokenWorkloadTests {
    func configuration(_ mix: String, apps: Int = 2, prefill: Int = 0) throws -> LoadConfiguration {
        LoadConfiguration(apps: apps, workload: .token, mix: try OperationMix(parsing: mix), itemsPerApp: 4,
                          operations: 40, warmup: 0, team: TestBackend.uniqueTeamID(), prefillAccounts: prefill)
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func signInsOnlyAreAllListedAtTheEnd(_ backend: TestBackend) throws {
        let report = try LoadRunner(configuration: configuration("signin=100", prefill: 6), store: backend.makeStore()).runInThreads()
        #expect(report.passed, "\(report.consistency)")
        #expect(report.operations.map(\.operation) == [.signin])
        // Every app's 4 users (each signed in at least once in 40 tries, with this seed) and the 6 prefilled.
        #expect(report.consistency.accountsChecked == 2 * 4 + 6)
        #expect(report.consistency.accountsListed == 2 * 4 + 6)
        #expect(report.consistency.lostSignIns == 0)
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func theDefaultMixStaysConsistent(_ backend: TestBackend) throws {
        let mix = LoadConfiguration.Workload.token.defaultMix
        let report = try LoadRunner(configuration: configuration(mix, apps: 3), store: backend.makeStore()).runInThreads()
        #expect(report.passed, "\(report.consistency) errors: \(report.errorsByStatus)")
        #expect(report.unexpectedErrors == 0)
        #expect(Set(report.operations.map(\.operation)).isSubset(of: Set(LoadConfiguration.Workload.token.operations)))
    }

    /// Another app's item the caches cannot read (a refresh token whose value is not JSON) is
    /// skipped as the SDK skips it, and the report names it once, whichever apps met it.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func anUnreadableItemOfAnotherAppIsSkippedAndReportedOnce(_ backend: TestBackend) throws {
        let store = try backend.makeStore()
        // A group the run names (as `--group G --allow-existing-data`), which another app shares.
        var configuration = try configuration("signin=50,remove-account=50", apps: 2)
        configuration = LoadConfiguration(apps: 2, workload: .token, mix: configuration.mix, itemsPerApp: 4, operations: 40, warmup: 0,
                                          team: configuration.team, group: "\(configuration.team).com.contoso.shared", allowExistingData: true)
        var hostile = NewItem(account: "hostile-login.microsoftonline.com", service: "refreshtoken-hostile--",
                              group: configuration.group, data: Data("{\"secret\": [[[[".utf8))
        hostile.type = 2002
        let planted = try Keychain(app: configuration.identity(ofApp: 0), store: store).add(hostile)
        let report = try LoadRunner(configuration: configuration, store: store).runInThreads()
        #expect(report.unexpectedErrors == 0, "\(report.errorsByStatus)")
        #expect(report.skippedItems.count == 1, "\(report.skippedItems)")
        #expect(report.skippedItems.first?.account == planted.account)
        #expect(report.skippedItems.first?.service == planted.service)
        #expect(report.skippedItems.first?.reason.isEmpty == false)
    }

    @Test func mixesAreCheckedAgainstTheWorkload() throws {
        #expect(throws: LoadError.self) { try configuration("read=100").validate() }
        #expect(throws: LoadError.self) {
            try LoadConfiguration(mix: OperationMix(parsing: "signin=100"), operations: 1).validate()
        }
        #expect(throws: LoadError.self) {
            try LoadConfiguration(mix: OperationMix(parsing: "read=100"), operations: 1, prefillAccounts: 3).validate()
        }
    }

    func entry(_ kind: JournalEntry.Kind, key: Int = 0, start: UInt64, end: UInt64) -> JournalEntry {
        JournalEntry(kind: kind, key: key, version: 0, start: start, end: end)
    }

    @Test func signInsMissingFromTheListAreLostUnlessAWipeOrRemovalCameAfter() throws {
        let configuration = try configuration("signin=100", apps: 1)
        let user = { LoadConfiguration.user(app: 0, key: $0) }
        let journals = [0: [entry(.signIn, key: 0, start: 10, end: 20), entry(.signIn, key: 2, start: 50, end: 60),
                            entry(.removeAccount, key: 2, start: 70, end: 80), entry(.signIn, key: 3, start: 90, end: 100),
                            entry(.signIn, key: 1, start: 130, end: 140)]]
        // key 0 listed; key 2 removed yet listed: resurrected; key 3 missing, but a wipe by
        // another app ended after its sign-in began; key 1 signed in after that wipe: lost.
        let wipe = [1: [entry(.wipe, start: 95, end: 120)]]
        let report = ConsistencyReport(
            tokenJournals: journals.merging(wipe) { $1 }, prefill: [entry(.signIn, key: 0, start: 1, end: 2)],
            listed: [user(0), user(2), LoadConfiguration.prefilledUser(0)], configuration: configuration)
        #expect(report.lostSignIns == 1)
        #expect(report.resurrectedAccounts == 1)
        #expect(report.accountsChecked == 5)
        #expect(!report.isConsistent)
    }
}

/// A store whose `stallAt`-th read takes `stall` seconds: a hiccup of the daemon.
final class StallingStore: ItemStore {
    let base = InMemoryStore()
    let stallAt: Int
    let stall: TimeInterval
    private let reads = Atomic<Int>(0)

    init(stallAt: Int, stall: TimeInterval) {
        self.stallAt = stallAt
        self.stall = stall
    }

    var name: String { "stalling" }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }
    func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }
    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        // The stall is the behaviour under test (a slow daemon), not a wait for another thread.
        if reads.add(1, ordering: .relaxed).newValue == stallAt { Thread.sleep(forTimeInterval: stall) }
        return try base.items(matching: query, limit: limit)
    }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}

@Suite("Open loop")
struct OpenLoopTests {
    func run(rate: Double?) throws -> LoadReport {
        let configuration = LoadConfiguration(
            apps: 1, mix: try OperationMix(parsing: "read=100"), itemsPerApp: 10, operations: 300, warmup: 0, rate: rate)
        return try LoadRunner(configuration: configuration, store: StallingStore(stallAt: 10, stall: 0.2)).runInThreads()
    }

    /// One 200 ms stall at 1,000 calls/s delays the ~200 calls scheduled behind it: open loop
    /// counts that wait from each call's intended start; closed loop sees one slow call.
    @Test func openLoopMeasuresTheWaitAStallCausesItsSuccessors() throws {
        let open = try run(rate: 1000)
        let closed = try run(rate: nil)
        #expect(open.requestedRate == 1000)
        #expect(closed.requestedRate == nil)
        #expect(open.totalOperations == 300 && closed.totalOperations == 300)
        #expect(open.overall.p50 >= 20_000, "p50 \(open.overall.p50) µs")
        #expect(closed.overall.p50 * 10 < open.overall.p50)
        #expect(closed.overall.max >= 200_000 && open.overall.max >= 200_000)
    }
}

@Suite("Load configuration errors name settings, not flags")
struct LoadConfigurationErrorTests {
    @Test func outOfRangeNamesTheSettingAndItsRange() throws {
        let mix = try OperationMix(parsing: "write=100")
        #expect(throws: LoadError.invalidConfiguration("itemsPerApp must be a whole number from 1 to 100000; got 0")) {
            try LoadConfiguration(apps: 1, mix: mix, itemsPerApp: 0).validate()
        }
        #expect(throws: LoadError.invalidConfiguration("prefillAccounts needs workload token")) {
            try LoadConfiguration(apps: 1, mix: mix, prefillAccounts: 1).validate()
        }
    }
}
