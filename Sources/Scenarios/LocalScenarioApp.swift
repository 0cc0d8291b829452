import Device
import Foundation
import SharedKeychain
import Simulation
import SuiteManifest
import Synchronization
import TokenCache

/// A simulated app in this process: a ``SimulatedApp`` (its keychain through the scenario's
/// mitigations, its MSAL token cache as its manifest entry configures it) on the shared store.
/// Background jobs run on threads of their own.
final class LocalScenarioApp: ScenarioApp {
    let bundleID: String
    /// An app in this process never goes away on its own.
    let exitReason: String? = nil
    private let keychain: Keychain
    private let tokens: TokenCache
    /// Real time, moved by `advance-clock` steps.
    private let clock: SimulationClock
    private let jobs = Mutex<[String: JobThread]>([:])

    /// - Parameters:
    ///   - app: the suite's app.
    ///   - keychains: the shared store and the scenario's mitigation policy.
    ///   - skippedItems: where the app's token cache reports items it cannot read, or nil.
    /// - Throws: ``ScenarioError/suite(_:)`` when the app's entitlements are unusable, or
    ///   ``ScenarioError/appFailed(app:reason:)`` when its MSAL configuration is.
    init(app: SuiteApp, keychains: AppKeychains, skippedItems: SkippedItemReport? = nil) throws(ScenarioError) {
        bundleID = app.bundleID
        // Every setting of the app's manifest entry, its SDK included: the suite-entry rule
        // `Device.resolve` applies.
        let resolved: ResolvedApp
        do { resolved = try ResolvedApp(suiteEntry: app, manifest: app.declaration.file) } catch { throw .suite(error) }
        var configuration = resolved.manifestTokenConfiguration
        configuration?.skippedItems = skippedItems
        do {
            let simulated = try SimulatedApp(resolved, keychains: keychains, clock: SimulationClock(), tokens: configuration)
            keychain = simulated.keychain
            tokens = try simulated.tokenCache()
            clock = simulated.clock
        } catch {
            throw .appFailed(app: app.bundleID, reason: error.message)
        }
    }

    func perform(_ operation: ScenarioOperation) -> OperationOutcome {
        let started = Date()
        let start = ContinuousClock.now
        var outcome: OperationOutcome
        do {
            let result = try execute(operation)
            outcome = OperationOutcome(started: started, seconds: 0, status: .success, count: result.count, value: result.value)
        } catch let error as any StatusReporting {
            outcome = OperationOutcome(started: started, seconds: 0, status: error.status, code: error.errorCode, message: error.message)
        } catch {
            outcome = OperationOutcome(started: started, seconds: 0, status: .io, message: "\(error)")
        }
        outcome.seconds = (ContinuousClock.now - start) / .seconds(1)
        return outcome
    }

    func start(_ job: BackgroundJob, onRun: @escaping @Sendable (OperationOutcome) -> Void) {
        let thread = JobThread(job: job) { [self] in perform(job.operation) } onRun: { onRun($0) }
        jobs.withLock { $0[job.name] = thread }
        thread.start()
    }

    func stop(job name: String) {
        jobs.withLock { $0.removeValue(forKey: name) }?.stop()
    }

    func advanceClock(by seconds: Double) { clock.advance(by: seconds) }

    func close() {
        let running = jobs.withLock { jobs in
            defer { jobs.removeAll() }
            return Array(jobs.values)
        }
        running.forEach { $0.stop() }
    }

    // MARK: Operations

    /// The count and value an operation reports.
    private struct Result {
        var count: Int?
        var value: String?
    }

    private func execute(_ operation: ScenarioOperation) throws -> Result {
        switch operation.kind {
        case .itemAdd:
            try keychain.add(NewItem(
                account: operation.account ?? "", service: operation.service ?? "", group: operation.group,
                generic: operation.generic.map { Data($0.utf8) }, type: operation.type, label: operation.label,
                data: Data((operation.data ?? "").utf8)))
            return Result(count: 1)
        case .itemGet:
            return Result(count: try keychain.copyMatching(query(operation)).count)
        case .itemList:
            return Result(count: try keychain.copyAll(.all(in: operation.group)).count)
        case .itemUpdate:
            return Result(count: try keychain.update(query(operation), with: ItemChange(data: Data((operation.data ?? "").utf8))))
        case .itemDelete:
            return Result(count: try keychain.delete(query(operation)))
        case .itemIncrement:
            return Result(value: String(try increment(operation)))
        case .itemCounter:
            guard let current = try counter(operation) else { throw KeychainError.itemNotFound(query: counterQuery(operation).description) }
            return Result(value: String(current))
        case .tokenSignIn:
            let result = try tokens.signIn(
                username: operation.user ?? "", tenant: operation.tenant ?? "common", scopes: operation.scopes ?? TokenCache.defaultScopes)
            return Result(value: result.account.username)
        case .tokenAcquire:
            let acquired = try tokens.acquireToken(TokenRequest(
                account: operation.account ?? "", scopes: operation.scopes ?? TokenCache.defaultScopes,
                prompt: operation.silent == true ? .never : .whenKnown))
            return Result(value: acquired.result.source.rawValue)
        case .tokenAccounts:
            let accounts = try tokens.accounts()
            return Result(count: accounts.count, value: accounts.map(\.username).joined(separator: ","))
        case .tokenRemove:
            let account = operation.account ?? ""
            return Result(count: operation.wipeAccount == true ? try tokens.wipeAccount(account) : try tokens.remove(account: account))
        case .tokenWipe:
            return Result(count: try tokens.wipeCacheForAllAccounts())
        case .tokenWipeInfo:
            let record = try tokens.wipeInfo()
            return Result(count: record == nil ? 0 : 1, value: record?.bundleID ?? "")
        }
    }

    private func query(_ operation: ScenarioOperation) -> KeychainQuery {
        KeychainQuery(group: operation.group, account: operation.account, service: operation.service)
    }

    /// Counters live under service `counter` unless the step names one.
    private func counterQuery(_ operation: ScenarioOperation) -> KeychainQuery {
        KeychainQuery(group: operation.group, account: operation.account, service: operation.service ?? Self.counterService)
    }

    static let counterService = "counter"

    /// The counter's value, or nil when there is no such item.
    private func counter(_ operation: ScenarioOperation) throws -> Int? {
        let item: KeychainItem
        do { item = try keychain.first(counterQuery(operation)) } catch .itemNotFound { return nil }
        guard let value = Int(String(decoding: item.data, as: UTF8.self).trimmingCharacters(in: .whitespaces)) else {
            throw CounterFailure(message: "the item \(counterQuery(operation)) does not hold a decimal counter")
        }
        return value
    }

    /// Read, add one, write back: update when the item was there, add when not, with no lock
    /// in between, as an app without coordination does it.
    private func increment(_ operation: ScenarioOperation) throws -> Int {
        let current = try counter(operation)
        let next = (current ?? 0) + 1
        let data = Data(String(next).utf8)
        if current == nil {
            try keychain.add(NewItem(
                account: operation.account ?? "", service: operation.service ?? Self.counterService, group: operation.group, data: data))
        } else {
            try keychain.update(counterQuery(operation), with: ItemChange(data: data))
        }
        return next
    }
}

/// An item that should hold a counter does not.
private struct CounterFailure: StatusReporting {
    let message: String
    var status: KeychainStatus { .decode }
}
