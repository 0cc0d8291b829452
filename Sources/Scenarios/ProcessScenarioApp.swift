import Device
import Foundation
import KeychainStorage
import SharedKeychain
import Simulation
import Synchronization
import TokenCache

/// A simulated app in a process of its own (the tool run as `scenario-worker`), so its calls
/// contend with the other apps' for the keyring as real apps' do. Requests go out over a
/// ``LineChannel`` as ``ScenarioAppRequest``s; the answers come back by id.
final class ProcessScenarioApp: ScenarioApp {
    let bundleID: String
    private let state = Shared()
    private let process: LineChannel<ScenarioAppRequest, ScenarioAppResponse>

    /// What the reader thread fills in (a class: the callbacks outlive init).
    private final class Shared: Sendable {
        struct State {
            var nextID = 0
            var waiting: [Int: DispatchSemaphore] = [:]
            var outcomes: [Int: OperationOutcome] = [:]
            var jobs: [String: @Sendable (OperationOutcome) -> Void] = [:]
            var ready: Bool?
            var startupFailure: String?
            var closed = false
        }
        let lock = Mutex(State())
        let started = DispatchSemaphore(value: 0)

        func receive(_ message: ScenarioAppResponse) {
            switch message {
            case .ready:
                lock.withLock { $0.ready = true }
                started.signal()
            case .failed(let reason):
                lock.withLock {
                    $0.ready = false
                    $0.startupFailure = reason
                }
                started.signal()
            case .result(let id, let outcome):
                lock.withLock { state in
                    state.outcomes[id] = outcome
                    return state.waiting.removeValue(forKey: id)
                }?.signal()
            case .done(let id):
                lock.withLock { $0.waiting.removeValue(forKey: id) }?.signal()
            case .jobRun(let job, let outcome):
                lock.withLock { $0.jobs[job] }?(outcome)
            }
        }

        /// The process went away: wake everyone who waits on it.
        func close() {
            let waiting = lock.withLock { state in
                state.closed = true
                defer { state.waiting.removeAll() }
                return Array(state.waiting.values)
            }
            waiting.forEach { $0.signal() }
            started.signal()
        }
    }

    /// Starts the app's process and waits until it is ready.
    /// - Throws: ``ScenarioError/appFailed(app:reason:)`` when it cannot start or says why not.
    init(bundleID: String, executable: URL, arguments: [String], startTimeout: Double = 60) throws(ScenarioError) {
        self.bundleID = bundleID
        let state = state
        do {
            process = try LineChannel(
                spawning: executable, arguments: arguments, onMessage: state.receive, onClose: state.close)
        } catch {
            throw .appFailed(app: bundleID, reason: "cannot start \(executable.path): \(error.localizedDescription)")
        }
        guard state.started.wait(timeout: .now() + startTimeout) == .success else {
            process.terminate()
            throw .appFailed(app: bundleID, reason: "not ready after \(Int(startTimeout)) s")
        }
        let (ready, failure) = state.lock.withLock { ($0.ready, $0.startupFailure) }
        guard ready == true else {
            let reason = failure ?? "exited before it was ready: \(process.errorOutput)"
            process.terminate()
            throw .appFailed(app: bundleID, reason: reason)
        }
    }

    func perform(_ operation: ScenarioOperation) -> OperationOutcome {
        let started = Date()
        let id = request { .perform(id: $0, operation: operation) }
        return state.lock.withLock { $0.outcomes.removeValue(forKey: id) }
            ?? OperationOutcome(started: started, seconds: 0, status: .io, message: "the app's process exited: \(process.errorOutput)")
    }

    func start(_ job: BackgroundJob, onRun: @escaping @Sendable (OperationOutcome) -> Void) {
        state.lock.withLock { $0.jobs[job.name] = onRun }
        process.send(.start(job: job))
    }

    func stop(job name: String) {
        _ = request { .stop(id: $0, job: name) }
        state.lock.withLock { _ = $0.jobs.removeValue(forKey: name) }
    }

    func advanceClock(by seconds: Double) {
        _ = request { .advanceClock(id: $0, seconds: seconds) }
    }

    func close() {
        process.closeInput()
        if !process.waitForExit(milliseconds: 10_000) { process.terminate() }
        process.terminate()
    }

    /// Sends the message made with a fresh id and waits for its answer (or the process's end).
    private func request(_ message: (Int) -> ScenarioAppRequest) -> Int {
        let semaphore = DispatchSemaphore(value: 0)
        let (id, closed) = state.lock.withLock { state in
            state.nextID += 1
            if !state.closed { state.waiting[state.nextID] = semaphore }
            return (state.nextID, state.closed)
        }
        guard !closed else { return id }
        process.send(message(id))
        semaphore.wait()
        return id
    }

    /// Set once the process is gone: what it wrote to standard error.
    var exitReason: String? {
        state.lock.withLock { $0.closed } ? "its process exited: \(process.errorOutput)" : nil
    }
}

/// What the runner asks of an app process, one JSON line each (``LineChannel``).
enum ScenarioAppRequest: Codable, Sendable {
    case perform(id: Int, operation: ScenarioOperation)
    case start(job: BackgroundJob)
    case stop(id: Int, job: String)
    case advanceClock(id: Int, seconds: Double)
}

/// What an app process says to the runner: `ready` (or `failed`) once, then the answer to each
/// request by id, and each background run as it happens.
enum ScenarioAppResponse: Codable, Sendable {
    case ready
    case failed(message: String)
    case result(id: Int, outcome: OperationOutcome)
    case jobRun(job: String, outcome: OperationOutcome)
    case done(id: Int)
}

/// The app-process side of a scenario run in processes: one simulated app serving
/// ``ScenarioAppRequest``s from standard input until it ends. Each request runs on a thread of
/// its own, so operations of one app in a `concurrent` block overlap.
public enum ScenarioWorker {
    /// Serves `bundleID` of `scenario` on `store`; returns when standard input ends. Items the
    /// app cannot read are reported to `skippedItems`; `faults` is the device's fault plan.
    public static func serve(
        scenario: Scenario, bundleID: String, store: any ItemStore, skippedItems: SkippedItemReport? = nil,
        faults: (any KeychainFaultSource)? = nil
    ) {
        let channel = LineChannelServer<ScenarioAppRequest, ScenarioAppResponse>()
        let app: LocalScenarioApp
        do {
            let suiteApp = try scenario.suite.app(bundleID: bundleID)
            app = try LocalScenarioApp(
                app: suiteApp, keychains: AppKeychains(store: store, policy: scenario.policy, faults: faults), skippedItems: skippedItems)
        } catch {
            channel.send(.failed(message: "\(error)"))
            return
        }
        channel.send(.ready)
        let requests = DispatchGroup()
        while let request = channel.receive() {
            requests.enter()
            Thread {
                defer { requests.leave() }
                switch request {
                case .perform(let id, let operation):
                    channel.send(.result(id: id, outcome: app.perform(operation)))
                case .start(let job):
                    app.start(job) { channel.send(.jobRun(job: job.name, outcome: $0)) }
                case .stop(let id, let job):
                    app.stop(job: job)
                    channel.send(.done(id: id))
                case .advanceClock(let id, let seconds):
                    app.advanceClock(by: seconds)
                    channel.send(.done(id: id))
                }
            }.start()
        }
        requests.wait()
        app.close()
    }
}
