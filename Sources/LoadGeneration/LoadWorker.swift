import Device
import Foundation
import SharedKeychain
import Simulation
import Synchronization
import TokenCache

/// One simulated app: draws operations from the mix and runs them against its own view of
/// the keychain, timing each call and journaling every acknowledged change.
public struct LoadWorker: Sendable {
    public let app: Int
    public let configuration: LoadConfiguration
    public let keychain: Keychain
    /// The app's MSAL cache in the shared group, for `acquire`.
    public let tokens: TokenCache
    /// The keychain calls `tokens` has made so far, by SecItem function.
    private let calls = KeychainCallCounter()
    /// The faults the device's plan injected into this app's calls.
    private let injected: InjectedFaultCounter
    /// The items `tokens` skipped because it could not read them (another app wrote them).
    private let skipped = SkippedItemReport()

    /// - Parameter keychains: the store and the groups' mitigation policy; the app's keychain is
    ///   the one they make for it (its deletes guarded and journaled where the policy says).
    /// - Throws: what making the app's identity or its token cache throws.
    public init(app: Int, configuration: LoadConfiguration, keychains: AppKeychains) throws {
        let injected = InjectedFaultCounter(base: keychains.faults)
        self.injected = injected
        self.app = app
        self.configuration = configuration
        var tokenConfiguration = configuration.tokenConfiguration
        tokenConfiguration.trace = calls.trace
        tokenConfiguration.skippedItems = skipped
        // The device's fault plan, counted for this app's report.
        let counted = AppKeychains(store: keychains.store, policy: keychains.policy, faults: injected)
        let simulated = try SimulatedApp(
            try configuration.app(app), keychains: counted, clock: SimulationClock(), tokens: tokenConfiguration)
        keychain = simulated.keychain
        tokens = try simulated.tokenCache()
    }

    /// Runs the warm-up and the measured phase from now; `progress` counts every finished call.
    public func run(progress: ProgressCounter? = nil) -> WorkerResult {
        var result = WorkerResult(app: app)
        var random = SeededGenerator(seed: configuration.seed &+ UInt64(app))
        var versions = [Int](repeating: 0, count: configuration.itemsPerApp)
        let start = MonotonicClock.now()
        let measureFrom = start + UInt64(configuration.warmup * 1e9)
        let measureUntil = measureFrom + UInt64(configuration.duration * 1e9)
        var measured = 0
        let reconnectsAtStart = reconnects
        // Open loop: this app's share of the rate, on a fixed schedule from `start`.
        let interval = configuration.rate.map { UInt64(1e9 * Double(configuration.apps) / $0) }
        var scheduled = start
        while true {
            let now = MonotonicClock.now()
            if let operations = configuration.operations {
                if measured >= operations { break }
            } else if (interval == nil ? now : scheduled) >= measureUntil {
                break
            }
            let operation = configuration.mix.operation(for: Int(random.next() % 100))
            let reconnectsBefore = reconnects
            // In open loop a call starts at its scheduled time, or at once when the schedule
            // has fallen behind; its latency counts from the schedule, so the wait a slow call
            // caused its successors is measured (coordinated omission).
            var callStart = MonotonicClock.now()
            if let interval {
                if scheduled > callStart { MonotonicClock.sleep(until: scheduled) }
                callStart = scheduled
                scheduled += interval
            }
            // The consistency check needs when the call really began, not when it was due.
            let began = max(callStart, MonotonicClock.now())
            let callsBefore = calls.counts
            let injectedBefore = injected.total
            let injectedByStatusBefore = injectedBefore == 0 ? [:] : injected.byStatus
            let outcome = perform(operation, random: &random, versions: &versions)
            let callEnd = MonotonicClock.now()
            result.activeStart = min(result.activeStart, began)
            result.activeEnd = max(result.activeEnd, callEnd)
            if reconnects != reconnectsBefore, case .failed(let status) = outcome {
                result.reconnectErrors[status.name, default: 0] += 1
            }
            if callStart >= measureFrom {
                measured += 1
                result.record(operation, nanoseconds: callEnd - callStart, start: callStart, end: callEnd)
                for (function, count) in calls.counts where count != callsBefore[function] {
                    result.keychainCalls[operation, default: [:]][function, default: 0] += count - (callsBefore[function] ?? 0)
                }
                if injected.total != injectedBefore {
                    for (status, count) in injected.byStatus where count != injectedByStatusBefore[status] {
                        result.injectedFaults[status, default: 0] += count - (injectedByStatusBefore[status] ?? 0)
                    }
                    if case .failed(let status) = outcome { result.injectedFailures[status.name, default: 0] += 1 }
                }
                switch outcome {
                case .done: break
                case .expected(let name): result.expectedOutcomes[operation, default: [:]][name, default: 0] += 1
                case .failed(let status): result.errors[operation, default: [:]][status.name, default: 0] += 1
                }
            }
            if case .failed = outcome {} else if let entry = outcome.journal(start: began, end: callEnd) {
                result.journal.append(entry)
            }
            progress?.increment()
        }
        result.reconnects = reconnects - reconnectsAtStart
        result.skippedItems = skipped.items
        return result
    }

    /// The store's reconnections so far (0 for a store that never reconnects).
    private var reconnects: Int { (keychain.store as? any ReconnectReporting)?.reconnects ?? 0 }

    private enum Outcome {
        case done(JournalEntry.Kind?, key: Int, version: Int)
        /// A normal outcome that is not plain success, by name (`errSecItemNotFound`).
        case expected(String)
        case failed(KeychainStatus)

        func journal(start: UInt64, end: UInt64) -> JournalEntry? {
            guard case .done(let kind?, let key, let version) = self else { return nil }
            return JournalEntry(kind: kind, key: key, version: version, start: start, end: end)
        }

        static let done = Outcome.done(nil, key: 0, version: 0)
    }

    private func perform(_ operation: LoadOperation, random: inout SeededGenerator, versions: inout [Int]) -> Outcome {
        if configuration.workload == .token { return performTokenOperation(operation, random: &random) }
        let group = configuration.group
        let key = Int(random.next() % UInt64(configuration.itemsPerApp))
        let account = LoadConfiguration.account(app: app, key: key)
        let own = KeychainQuery(group: group, account: account, service: LoadConfiguration.service)
        do {
            switch operation {
            case .read:
                let owner = Int(random.next() % UInt64(configuration.apps))
                let other = Int(random.next() % UInt64(configuration.itemsPerApp))
                _ = try keychain.copyMatching(KeychainQuery(group: group, account: LoadConfiguration.account(app: owner, key: other),
                                                            service: LoadConfiguration.service))
                return .done
            case .write:
                versions[key] += 1
                let data = ItemValue(app: app, key: key, version: versions[key]).encoded(size: configuration.valueSize)
                try upsert(own, account: account, data: data)
                return .done(.write, key: key, version: versions[key])
            case .update:
                versions[key] += 1
                let data = ItemValue(app: app, key: key, version: versions[key]).encoded(size: configuration.valueSize)
                try keychain.update(own, with: ItemChange(data: data))
                return .done(.write, key: key, version: versions[key])
            case .remove:
                do { try keychain.delete(own) } catch .itemNotFound {}
                return .done(.delete, key: key, version: versions[key])
            case .list:
                _ = try keychain.copyMatching(.all(in: group), limit: .all)
                return .done
            case .wipe:
                do { try keychain.delete(.all(in: group)) } catch .itemNotFound {}
                return .done(.wipe, key: 0, version: 0)
            case .acquire:
                return acquire()
            case .signin, .refresh, .removeAccount:
                // Token workload only; the configuration refuses them in a mix of items.
                return .failed(.param)
            }
        } catch .itemNotFound {
            return .expected(KeychainStatus.itemNotFound.name)
        } catch .storage(.refused) {
            return .expected(Self.refusedByPolicy)
        } catch {
            return .failed(error.status)
        }
    }

    /// The expected outcome of a delete the group's mitigation policy refused (guarded delete):
    /// the policy at work, nothing deleted.
    static let refusedByPolicy = "refused by policy"

    /// The token workload: the app's own users (`--items` of them) signed in, acquired, refreshed
    /// and removed, and the group wiped, through the MSAL-layout cache.
    private func performTokenOperation(_ operation: LoadOperation, random: inout SeededGenerator) -> Outcome {
        let key = Int(random.next() % UInt64(configuration.itemsPerApp))
        let user = LoadConfiguration.user(app: app, key: key)
        do throws(TokenCacheError) {
            switch operation {
            case .signin:
                let result = try tokens.signIn(username: user)
                return Self.outcome(of: result.cacheSaveFailures) ?? .done(.signIn, key: key, version: 0)
            case .acquire, .refresh:
                let result = try tokens.acquireTokenSilent(account: user, scopes: TokenCache.defaultScopes, forceRefresh: operation == .refresh)
                return Self.outcome(of: result.cacheSaveFailures) ?? .done
            case .removeAccount:
                do { try tokens.remove(account: user) } catch .accountNotFound {}
                return .done(.removeAccount, key: key, version: 0)
            case .wipe:
                try tokens.wipeCacheForAllAccounts()
                return .done(.wipe, key: 0, version: 0)
            case .read, .write, .update, .remove, .list:
                return .failed(.param)
            }
        } catch .interactionRequired {
            return .expected("interaction_required")
        } catch .keychain(.storage(.refused)) {
            return .expected(Self.refusedByPolicy)
        } catch {
            return .failed(error.status)
        }
    }

    /// What a returned token's failed saves make of the operation; nil when it counts as done.
    /// Another app's add ending the token save (errSecDuplicateItem) is MSAL's own partial save;
    /// one ending only the account-metadata update is left to the consistency check, which
    /// counts those losses; any other failure is unexpected.
    private static func outcome(of failures: [CacheSaveFailure]) -> Outcome? {
        if let unexpected = failures.first(where: { $0.status != .duplicateItem }) { return .failed(unexpected.status) }
        return failures.contains { $0.step == .tokens } ? .expected(LoadReport.partialSave) : nil
    }

    /// Silent first; after a wipe, a sign-in (counted as an expected `interaction_required`).
    private func acquire() -> Outcome {
        do {
            let result = try tokens.acquireToken(
                account: LoadConfiguration.user(app: app), scopes: TokenCache.defaultScopes, interactive: true)
            return result.source == .interactive ? .expected("interaction_required") : .done
        } catch {
            return .failed(error.status)
        }
    }

    /// Update, then add when absent, then update again if another writer added in between:
    /// how the MSAL SDKs write.
    private func upsert(_ query: KeychainQuery, account: String, data: Data) throws(KeychainError) {
        do {
            try keychain.update(query, with: ItemChange(data: data))
        } catch .itemNotFound {
            do {
                try keychain.add(NewItem(account: account, service: LoadConfiguration.service, group: configuration.group, data: data))
            } catch .duplicateItem {
                try keychain.update(query, with: ItemChange(data: data))
            }
        }
    }
}

/// The data a simulated app writes: who owns the key, which key, which version, padded to the
/// configured size. The consistency check reads it back.
struct ItemValue: Equatable {
    var app: Int
    var key: Int
    var version: Int

    func encoded(size: Int) -> Data {
        var bytes = Array("\(app)|\(key)|\(version)|".utf8)
        if bytes.count < size { bytes += Array(repeating: UInt8(ascii: "."), count: size - bytes.count) }
        return Data(bytes)
    }

    init(app: Int, key: Int, version: Int) {
        self.app = app
        self.key = key
        self.version = version
    }

    init?(decoding data: Data) {
        let fields = data.prefix(64).split(separator: UInt8(ascii: "|"), maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count >= 3,
              let app = Int(String(decoding: fields[0], as: UTF8.self)),
              let key = Int(String(decoding: fields[1], as: UTF8.self)),
              let version = Int(String(decoding: fields[2], as: UTF8.self))
        else { return nil }
        self.init(app: app, key: key, version: version)
    }
}

/// Nanoseconds on the system-wide monotonic clock: comparable across processes, so apps in
/// separate processes share one timeline for phases and for the consistency check.
enum MonotonicClock {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// Blocks the calling thread until the clock reads `deadline` (an absolute sleep, so the
    /// schedule of an open-loop run does not drift).
    static func sleep(until deadline: UInt64) {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }
}

/// SplitMix64: a small, fast generator that repeats for a seed, so a load run can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Calls finished so far, shared between the apps and whoever shows progress.
public final class ProgressCounter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    func increment() { count.add(1, ordering: .relaxed) }

    public var value: Int { count.load(ordering: .relaxed) }
}

/// Counts the keychain calls of one token cache, by SecItem function: how many reads and writes
/// each operation costs, as MSAL makes them; and, under ``itemsWritten``, the items those writes
/// added, changed or deleted (an update that finds nothing writes none: it is a search).
final class KeychainCallCounter: Sendable {
    /// The key under which the items written are counted.
    static let itemsWritten = "items written"
    private let counted = Mutex<[String: Int]>([:])

    var trace: KeychainCallTrace {
        KeychainCallTrace { [self] call in
            counted.withLock { counts in
                counts[call.function.rawValue, default: 0] += 1
                if call.function != .copyMatching, call.status == .success {
                    counts[Self.itemsWritten, default: 0] += call.function == .delete ? call.count ?? 1 : 1
                }
            }
        }
    }

    var counts: [String: Int] { counted.withLock { $0 } }
}
