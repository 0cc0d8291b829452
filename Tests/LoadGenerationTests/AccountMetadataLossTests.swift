import Foundation
import KeychainStorage
import KeychainTestSupport
import SharedKeychain
import Synchronization
import Testing
@testable import LoadGeneration

/// Views of a shared store that make the account-metadata race happen on cue: the `writer`
/// view's first write of an account-metadata item (type 5001, one per client ID) waits for the
/// `reader` view's first read of it, and that read returns only once the write is made, as a
/// device's scheduler may order them.
final class MetadataRaceViews: Sendable {
    static let accountMetadataType: UInt32 = 5001
    let base: any ItemStore
    private let read = DispatchSemaphore(value: 0)
    private let written = DispatchSemaphore(value: 0)
    private let readerPaused = Mutex(false)
    private let writerPaused = Mutex(false)
    /// Whether a view waited in vain (the race could not be staged).
    let timedOut = Mutex(false)

    func wait(for semaphore: DispatchSemaphore) {
        if semaphore.wait(timeout: .now() + 60) == .timedOut { timedOut.withLock { $0 = true } }
    }

    init(_ base: any ItemStore) { self.base = base }

    func reader() -> any ItemStore { View(self, isReader: true) }
    func writer() -> any ItemStore { View(self, isReader: false) }

    final class View: ItemStore {
        let race: MetadataRaceViews
        let isReader: Bool
        var name: String { race.base.name }
        var userAuthentication: AuthenticationProvider? { race.base.userAuthentication }

        init(_ race: MetadataRaceViews, isReader: Bool) {
            self.race = race
            self.isReader = isReader
        }

        func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
            let found = try race.base.items(matching: query, limit: limit)
            if isReader, query.type == MetadataRaceViews.accountMetadataType, Self.first(race.readerPaused) {
                race.read.signal()
                race.wait(for: race.written)
            }
            return found
        }

        func add(_ item: StoredItem) throws(StorageError) {
            let staged = !isReader && item.type == MetadataRaceViews.accountMetadataType && Self.first(race.writerPaused)
            if staged { race.wait(for: race.read) }
            defer { if staged { race.written.signal() } }
            try race.base.add(item)
        }

        func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
            let staged = !isReader && query.type == MetadataRaceViews.accountMetadataType && Self.first(race.writerPaused)
            if staged { race.wait(for: race.read) }
            // An update that found nothing is followed by the add: that is the write to stage.
            let changed = try race.base.update(matching: query, with: change, at: date)
            if staged {
                if changed > 0 { race.written.signal() } else { race.writerPaused.withLock { $0 = false }; race.read.signal() }
            }
            return changed
        }

        /// True the first time, for `flag`.
        private static func first(_ flag: borrowing Mutex<Bool>) -> Bool {
            flag.withLock { done in defer { done = true }; return !done }
        }

        func delete(matching query: ItemQuery) throws(StorageError) -> Int { try race.base.delete(matching: query) }
    }
}

/// MSAL keeps every account's sign-in state for a client ID in ONE item, read-modify-written
/// without a lock (IdentityCore `MSIDAccountMetadataCacheAccessor updateSignInStateForHomeAccountId`,
/// `MSIDMetadataCache saveAccountMetadataCacheItem`): two apps of one client ID signing users in
/// at once can lose each other's entry, on a device as here. The token workload counts such
/// losses as what they are, an expected outcome of MSAL's layout, apart from the emulator's own
/// lost updates.
@Suite("Token workload: account-metadata entries lost to MSAL's read-modify-write")
struct AccountMetadataLossTests {
    func configuration(apps: Int) throws -> LoadConfiguration {
        LoadConfiguration(apps: apps, workload: .token, mix: try OperationMix(parsing: "signin=100"), itemsPerApp: 8,
                          operations: 1, warmup: 0, team: TestBackend.uniqueTeamID())
    }

    func signIn(key: Int, _ start: UInt64, _ end: UInt64) -> JournalEntry {
        JournalEntry(kind: .signIn, key: key, version: 0, start: start, end: end)
    }

    func removal(key: Int, _ start: UInt64, _ end: UInt64) -> JournalEntry {
        JournalEntry(kind: .removeAccount, key: key, version: 0, start: start, end: end)
    }

    /// Each user's outcome, classified: a missing or stale entry while another app worked is
    /// MSAL's; a missing token, or a missing entry no other app can have overwritten, is the
    /// emulator's.
    @Test func theClassificationTellsMSALsLossesFromTheEmulators() throws {
        let configuration = try configuration(apps: 2)
        let user = { LoadConfiguration.user(app: 0, key: $0) }
        typealias State = TokenAccountsAfterRun.UserState
        let journals = [0: [
            signIn(key: 0, 10, 20),  // tokens kept, entry gone, app 1 at work: MSAL's, still listed
            signIn(key: 1, 30, 40),  // tokens kept, a stale signed_out came back: MSAL's, hidden
            signIn(key: 2, 50, 60),  // refresh token gone: the emulator's
            signIn(key: 3, 500, 510),  // entry gone while no other app worked: the emulator's
            removal(key: 4, 70, 80),  // listed through a stale signed_in, no token: MSAL's
            removal(key: 5, 90, 100),  // listed with its refresh token back: the emulator's
            signIn(key: 6, 110, 120),  // all kept
        ]]
        let states: [String: State] = [
            user(0): State(hasTokens: true, metadata: .missing),
            user(1): State(hasTokens: true, metadata: .signedOut),
            user(2): State(hasTokens: false, metadata: .signedIn),
            user(3): State(hasTokens: true, metadata: .missing),
            user(4): State(hasTokens: false, metadata: .signedIn),
            user(5): State(hasTokens: true, metadata: .signedOut),
            user(6): State(hasTokens: true, metadata: .signedIn),
        ]
        let after = TokenAccountsAfterRun(states: states, activity: [0: 10...510, 1: 5...300])
        let listed: Set<String> = [user(0), user(2), user(3), user(4), user(5), user(6)]
        let report = ConsistencyReport(tokenJournals: journals, prefill: [], listed: listed, accounts: after, configuration: configuration)
        #expect(report.accountMetadataEntriesLost == 3)
        #expect(report.accountsMislistedByLostMetadata == 2)
        #expect(report.lostSignIns == 2)
        #expect(report.resurrectedAccounts == 1)
        #expect(report.accountsChecked == 7)

        // The same outcomes with no other app at work: every one is the emulator's.
        let alone = ConsistencyReport(
            tokenJournals: journals, prefill: [], listed: listed, accounts: TokenAccountsAfterRun(states: states, activity: [0: 10...510]),
            configuration: configuration)
        #expect(alone.accountMetadataEntriesLost == 0)
        #expect(alone.lostSignIns == 4)
        #expect(alone.resurrectedAccounts == 2)
        #expect(!alone.isConsistent)

        // A prefilled sign-in came before any app started: its lost entry is the emulator's.
        let prefilled = ConsistencyReport(
            tokenJournals: [:], prefill: [signIn(key: 0, 1, 2)], listed: [LoadConfiguration.prefilledUser(0)],
            accounts: TokenAccountsAfterRun(states: [LoadConfiguration.prefilledUser(0): State(hasTokens: true, metadata: .missing)],
                                            activity: [0: 1...9, 1: 1...9]),
            configuration: configuration)
        #expect(prefilled.lostSignIns == 1)
        #expect(prefilled.accountMetadataEntriesLost == 0)
    }

    /// Two apps of one client ID sign a user in each; app 1 reads the client's metadata item
    /// before app 0 writes it and writes after: app 0's entry is lost, exactly as on a device.
    /// The run counts it as MSAL's, lists the user through its refresh token, and passes.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func aStagedRaceIsCountedAsMSALsAndTheRunPasses(_ backend: TestBackend) throws {
        let configuration = try configuration(apps: 2)
        let race = MetadataRaceViews(try backend.makeStore())
        let reader = try configuration.identity(ofApp: 1)
        let runner = try LoadRunner(configuration: configuration, store: race.base) { app in
            app == reader ? race.reader() : race.writer()
        }
        let report = try runner.runInThreads()
        #expect(!race.timedOut.withLock { $0 })
        #expect(report.unexpectedErrors == 0, "\(report.errorsByStatus)")
        // A partial save (below) can leave the user whose entry was lost without the tokens a
        // lost entry is judged by; then the loss may not be counted.
        if report.partialSaves == 0 {
            #expect(report.consistency.accountMetadataEntriesLost == 1, "\(report.consistency)")
        } else {
            #expect(report.consistency.accountMetadataEntriesLost <= 1, "\(report.consistency)")
        }
        #expect(report.consistency.accountsMislistedByLostMetadata == 0)
        #expect(report.consistency.lostSignIns == 0)
        // The two sign-ins also share the client's app metadata item: when one app's add of it
        // loses to the other's (-25299), MSAL's save ends there (a partial save, counted as
        // MSAL's), and that user may be unlisted until a later response writes the rest.
        #expect(report.consistency.accountsListed <= 2)
        #expect(report.consistency.accountsListed >= 2 - report.partialSaves, "\(report.consistency)")
        #expect(report.passed)
    }
}
