import Device
import Foundation
import SharedKeychain
import Simulation
import Synchronization
import TokenCache

/// Runs a load: checks that the group holds nothing it may not touch, lets the simulated apps
/// loose (as threads of this process, or as processes of their own through a ``WorkerFleet``),
/// lists the group once and checks that every acknowledged change is there, then removes what
/// the apps created.
///
/// The run never deletes data it did not write unless told to: in its own group (the default)
/// there is none; a named group that holds items is refused unless
/// ``LoadConfiguration/allowExistingData`` is set, and then every app reaches the storage
/// through the keychain ``AppKeychains`` makes for it, which applies the group's mitigation policy.
public struct LoadRunner: Sendable {
    public let configuration: LoadConfiguration
    /// The store and the groups' mitigation policy every app's keychain is made from.
    public let keychains: AppKeychains
    /// Each app's store and policy: ``keychains`` for every app, unless a test stands a store of
    /// its own under an app.
    private let keychainsOfApp: @Sendable (AppIdentity) -> AppKeychains

    /// This process's store, for setting up and checking.
    public var store: any ItemStore { keychains.store }

    /// - Parameter keychains: the store and the policy every app's keychain is made from.
    public init(configuration: LoadConfiguration, keychains: AppKeychains) throws(LoadError) {
        try configuration.validate()
        self.configuration = configuration
        self.keychains = keychains
        keychainsOfApp = { _ in keychains }
    }

    /// A run on `store` with no mitigation policy.
    public init(configuration: LoadConfiguration, store: any ItemStore) throws(LoadError) {
        try self.init(configuration: configuration, keychains: AppKeychains(store: store, policy: .none))
    }

    /// A run where `view(app)` stands under each app in place of `store` (tests that interleave
    /// the apps' calls), with no mitigation policy.
    init(configuration: LoadConfiguration, store: any ItemStore, view: @escaping @Sendable (AppIdentity) -> any ItemStore) throws(LoadError) {
        try configuration.validate()
        self.configuration = configuration
        keychains = AppKeychains(store: store, policy: .none)
        keychainsOfApp = { AppKeychains(store: view($0), policy: .none) }
    }

    /// Runs every app as a thread of this process; `progress` is called about five times a
    /// second with the number of calls finished so far.
    public func runInThreads(progress: @Sendable (Int) -> Void = { _ in }) throws -> LoadReport {
        try withGroup { existing in
            try runThreads(existing: existing, progress: progress)
        }
    }

    private func runThreads(existing: Set<ItemKey>, progress: @Sendable (Int) -> Void) throws -> LoadReport {
        let prefill = try prefillAccounts()
        let workers = try (0..<configuration.apps).map {
            try LoadWorker(app: $0, configuration: configuration, keychains: keychainsOfApp(try configuration.identity(ofApp: $0)))
        }
        let finished = ProgressCounter()
        let results = Mutex<[WorkerResult]?>(nil)
        let done = DispatchSemaphore(value: 0)
        // The apps start together, each on a thread of its own, as the processes do at `go`;
        // this thread reports progress meanwhile.
        Thread {
            let ran = StartBarrier.run(workers.count) { workers[$0].run(progress: finished) }
            results.withLock { $0 = ran }
            done.signal()
        }.start()
        while done.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            progress(finished.value)
        }
        progress(finished.value)
        return try report(results.withLock { $0 } ?? [], mode: .threads, prefill: prefill, existing: existing)
    }

    /// Runs every app as its own process, launched by `fleet`.
    public func runInProcesses(fleet: WorkerFleet, progress: @Sendable (Int) -> Void = { _ in }) throws -> LoadReport {
        try withGroup { existing in
            let prefill = try prefillAccounts()
            // Every app's token cache starts with MSAL's team-ID probe, which adds its item to the
            // group (their first) when none is there: app processes starting together would race
            // to add it, and all but one fail, as MSAL's init can on a device. Added here first,
            // the apps find it.
            _ = try tokenCache(ofApp: 0)
            let results = try fleet.run(configuration: configuration, policy: keychains.policy, progress: progress)
            return try report(results, mode: .processes, prefill: prefill, existing: existing)
        }
    }

    /// Token workload: signs in ``LoadConfiguration/prefillAccounts`` accounts, spread over the
    /// apps, before the apps start; their sign-ins are checked at the end like the apps' own.
    private func prefillAccounts() throws -> [JournalEntry] {
        guard configuration.workload == .token, configuration.prefillAccounts > 0 else { return [] }
        let caches = try (0..<configuration.apps).map { try tokenCache(ofApp: $0) }
        return try (0..<configuration.prefillAccounts).map { index in
            let start = MonotonicClock.now()
            _ = try caches[index % caches.count].signIn(username: LoadConfiguration.prefilledUser(index))
            return JournalEntry(kind: .signIn, key: index, version: 0, start: start, end: MonotonicClock.now())
        }
    }

    /// A user's state as the consistency check reads it.
    static func userState(_ state: AccountState) -> TokenAccountsAfterRun.UserState {
        let metadata: TokenAccountsAfterRun.MetadataEntry = switch state.signInState {
        case .signedIn?: .signedIn
        case .signedOut?: .signedOut
        case .unknown?, nil: .missing
        }
        return TokenAccountsAfterRun.UserState(hasTokens: state.hasRefreshToken, metadata: metadata)
    }

    /// The users a token run signed in or removed (its journals) and prefilled.
    static func users(of journals: [Int: [JournalEntry]], prefill: [JournalEntry]) -> [String] {
        var users = prefill.map { LoadConfiguration.prefilledUser($0.key) }
        for (app, entries) in journals.sorted(by: { $0.key < $1.key }) {
            let keys = Set(entries.lazy.filter { $0.kind == .signIn || $0.kind == .removeAccount }.map(\.key))
            users += keys.sorted().map { LoadConfiguration.user(app: app, key: $0) }
        }
        return users
    }

    private func tokenCache(ofApp index: Int) throws -> TokenCache {
        try simulatedApp(index, tokens: configuration.tokenConfiguration).tokenCache()
    }

    func keychain(ofApp index: Int) throws -> Keychain {
        try simulatedApp(index, tokens: nil).keychain
    }

    /// Simulated app `index` in this process, its keychain made by ``keychains``.
    private func simulatedApp(_ index: Int, tokens: TokenCacheConfiguration?) throws -> SimulatedApp {
        let app = try configuration.app(index)
        return try SimulatedApp(app, keychains: keychainsOfApp(app.identity), clock: SimulationClock(), tokens: tokens)
    }

    /// The report, always: when the group cannot be listed (the store is gone for good) the
    /// measurements are kept and the consistency check is marked as not made, which fails the run.
    private func report(_ results: [WorkerResult], mode: LoadReport.Mode, prefill: [JournalEntry], existing: Set<ItemKey>) throws -> LoadReport {
        let sorted = results.sorted { $0.app < $1.app }
        let journals = Dictionary(uniqueKeysWithValues: results.map { ($0.app, $0.journal.entries) })
        if configuration.workload == .token {
            let listed: [String]
            let states: [AccountState]
            do {
                let cache = try tokenCache(ofApp: 0)
                if checksOwnUsersOnly {
                    // The run's users only, each read on its own keychain account, and listed as
                    // the account list decides for them.
                    states = try cache.accountStates(usernames: Self.users(of: journals, prefill: prefill))
                    listed = states.filter(\.isListed).map(\.username)
                } else {
                    listed = try cache.accounts().map(\.username)
                    states = try cache.accountStates()
                }
            } catch {
                return LoadReport(configuration: configuration, mode: mode, backend: store.name, results: sorted,
                                  consistency: ConsistencyReport(), checkFailure: "\(error)")
            }
            let after = TokenAccountsAfterRun(
                states: Dictionary(states.map { ($0.username, Self.userState($0)) }, uniquingKeysWith: { first, _ in first }),
                activity: Dictionary(uniqueKeysWithValues: results.compactMap { result in result.activity.map { (result.app, $0) } }))
            var consistency = ConsistencyReport(
                tokenJournals: journals, prefill: prefill, listed: Set(listed), accounts: after, configuration: configuration)
            consistency.ownUsersOnly = checksOwnUsersOnly
            return LoadReport(configuration: configuration, mode: mode, backend: store.name, results: sorted, consistency: consistency)
        }
        let keychain = Keychain(app: try configuration.identity(ofApp: 0), store: store)
        let finalItems: [KeychainItem]
        do { finalItems = try keychain.copyAll(itemsCheckQuery, returningData: true) } catch {
            return LoadReport(configuration: configuration, mode: mode, backend: store.name, results: sorted,
                              consistency: ConsistencyReport(), checkFailure: error.description)
        }
        var consistency = ConsistencyReport(journals: journals, finalItems: finalItems, configuration: configuration, existing: existing)
        consistency.ownItemsOnly = checksOwnDataOnly
        return LoadReport(configuration: configuration, mode: mode, backend: store.name, results: sorted, consistency: consistency)
    }
}
