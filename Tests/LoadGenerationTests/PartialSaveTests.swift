import Foundation
import KeychainStorage
import KeychainTestSupport
import SharedKeychain
import Synchronization
import Testing
@testable import LoadGeneration

/// Another app's add of the same key lands just before the first add of an app-metadata item
/// (type 3001) under this view: that add answers errSecDuplicateItem.
final class AppMetadataAddRace: ItemStore {
    static let appMetadataType: UInt32 = 3001
    let base: any ItemStore
    private let raced = Mutex(false)
    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    init(_ base: any ItemStore) { self.base = base }

    func add(_ item: StoredItem) throws(StorageError) {
        if item.type == Self.appMetadataType, raced.withLock({ raced in defer { raced = true }; return !raced }) { try base.add(item) }
        try base.add(item)
    }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] { try base.items(matching: query, limit: limit) }
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }
    func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}

/// IdentityCore `MSIDKeychainTokenCache.m` `saveData` (one update, one add) and
/// `MSIDDefaultTokenCacheAccessor.m` `saveTokensWithConfiguration` (stops at the failed item):
/// a token response whose save another app's add ended is MSAL's own outcome.
@Suite("Token workload partial saves")
struct PartialSaveTests {
    /// A sign-in whose app-metadata add lost the race returns its token; its account was never
    /// written, so the check does not expect it, and the run counts one partial save and passes.
    @Test func saveTokensWithConfigurationStoppingAtADuplicateIsCountedAsMSALsPartialSave() throws {
        let configuration = LoadConfiguration(
            apps: 1, workload: .token, mix: try OperationMix(parsing: "signin=100"), itemsPerApp: 1,
            operations: 1, warmup: 0, team: TestBackend.uniqueTeamID())
        let base = InMemoryStore()
        let race = AppMetadataAddRace(base)
        let report = try LoadRunner(configuration: configuration, store: base) { _ in race }.runInThreads()
        #expect(report.partialSaves == 1)
        #expect(report.operations.first { $0.operation == .signin }?.expectedOutcomes == [LoadReport.partialSave: 1])
        #expect(report.unexpectedErrors == 0, "\(report.errorsByStatus)")
        #expect(report.consistency.lostSignIns == 0)
        #expect(report.passed)
        #expect(report.text.contains("expected on a device: 1 partial saves: another app's add (errSecDuplicateItem, -25299) ended a response's save"))
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains("\"partialSaves\":1"))
    }
}
