import Foundation
import KeychainTestSupport
import SharedKeychain
import Testing
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
