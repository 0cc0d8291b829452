import Device
import Foundation
import Mitigations
import SharedKeychain
import Simulation
import Synchronization

/// Simulated apps as separate OS processes, so contention for the keyring is real.
///
/// Each worker is the tool itself run with `arguments` (which open the same storage as the
/// parent's); fleet and worker speak ``WorkerProtocol`` over a ``LineChannel``. Each worker is
/// sent its app number, the run's ``LoadConfiguration`` and the groups' ``MitigationPolicy``
/// as they are, says `ready` once its app is set up, and all start together at the fleet's `go`.
public struct WorkerFleet: Sendable {
    public let executable: URL
    /// The arguments of every worker process: the worker command and the storage to open.
    public let arguments: [String]

    public init(executable: URL, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    func run(configuration: LoadConfiguration, policy: MitigationPolicy, progress: @Sendable (Int) -> Void) throws -> [WorkerResult] {
        let workers = try (0..<configuration.apps).map { app in
            try LaunchedWorker(app: app, executable: executable, arguments: arguments)
        }
        defer { workers.forEach { $0.terminate() } }
        for worker in workers { worker.send(.run(app: worker.app, configuration: configuration, policy: policy)) }
        for worker in workers { try worker.waitUntilReady() }
        for worker in workers { worker.send(.go) }
        while !workers.allSatisfy({ $0.waitForExit(milliseconds: 200) }) {
            progress(workers.reduce(0) { $0 + $1.progress })
        }
        progress(workers.reduce(0) { $0 + $1.progress })
        return try workers.map { try $0.result() }
    }
}

/// One worker process and what it has said so far.
private final class LaunchedWorker: Sendable {
    let app: Int
    private let channel: LineChannel<WorkerProtocol.Request, WorkerProtocol.Response>
    private let state = Shared()
    private let readyOrGone = DispatchSemaphore(value: 0)
    private let outputEnded = DispatchSemaphore(value: 0)

    /// What the reader thread learns, shared with it (a class: the callbacks outlive init).
    private final class Shared: Sendable {
        struct State {
            var progress = 0
            var ready = false
            var result: WorkerResult?
        }
        let lock = Mutex(State())
    }

    init(app: Int, executable: URL, arguments: [String]) throws {
        self.app = app
        let state = state
        let readyOrGone = readyOrGone
        let outputEnded = outputEnded
        channel = try LineChannel(
            spawning: executable, arguments: arguments,
            onMessage: { message in
                switch message {
                case .ready:
                    state.lock.withLock { $0.ready = true }
                    readyOrGone.signal()
                case .progress(let count):
                    state.lock.withLock { $0.progress = count }
                case .finished(let result):
                    state.lock.withLock { $0.result = result }
                }
            },
            onClose: {
                readyOrGone.signal()
                outputEnded.signal()
            })
    }

    func send(_ request: WorkerProtocol.Request) { channel.send(request) }

    func waitUntilReady() throws {
        readyOrGone.wait()
        guard state.lock.withLock({ $0.ready }) else {
            throw LoadError.workerFailed(app: app, reason: "exited before it was ready: \(errorOutput)")
        }
    }

    /// True once the process has exited; waits at most `milliseconds`.
    func waitForExit(milliseconds: Int) -> Bool { channel.waitForExit(milliseconds: milliseconds) }

    /// The result the worker sent, once its process has exited and its output is read.
    func result() throws -> WorkerResult {
        guard channel.exitStatus == 0 else {
            throw LoadError.workerFailed(app: app, reason: "exited with status \(channel.exitStatus): \(errorOutput)")
        }
        outputEnded.wait()
        outputEnded.signal()
        guard let result = state.lock.withLock({ $0.result }) else {
            throw LoadError.workerFailed(app: app, reason: "exited without a result: \(errorOutput)")
        }
        return result
    }

    var progress: Int { state.lock.withLock { $0.progress } }
    var errorOutput: String { channel.errorOutput }

    func terminate() { channel.terminate() }
}

/// What a worker process and its fleet say to each other, one JSON line each: the fleet sends
/// the worker its ``Request/run(app:configuration:policy:)``, the worker answers `ready`, waits
/// for `go`, reports `progress` as it runs and sends its ``WorkerResult`` when its time is up.
public enum WorkerProtocol {
    /// The fleet to a worker.
    public enum Request: Codable, Sendable {
        /// Be simulated app `app` of the run `configuration`, under the groups' `policy`.
        case run(app: Int, configuration: LoadConfiguration, policy: MitigationPolicy)
        /// Start the run.
        case go
    }

    /// A worker to the fleet.
    public enum Response: Codable, Sendable {
        /// The app is set up (its store is open and its token cache made).
        case ready
        /// Calls finished so far.
        case progress(Int)
        /// What the app measured and acknowledged.
        case finished(WorkerResult)
    }

    /// The worker side: takes its app and configuration from the fleet, runs the app on
    /// `store` (with the policy the fleet sent) once the fleet says go, and sends the result.
    /// - Throws: ``LoadError/workerFailed(app:reason:)`` when the fleet says something else,
    ///   or what setting the app up throws.
    /// - Parameters:
    ///   - store: the device's store, as this worker process opened it.
    ///   - faults: the device's fault plan, which every worker process consumes alike.
    public static func serve(store: any ItemStore, faults: (any KeychainFaultSource)? = nil) throws {
        let channel = LineChannelServer<Request, Response>()
        guard case .run(let app, let configuration, let policy)? = channel.receive() else {
            throw LoadError.workerFailed(app: -1, reason: "the fleet sent no configuration")
        }
        let worker = try LoadWorker(app: app, configuration: configuration, keychains: AppKeychains(store: store, policy: policy, faults: faults))
        channel.send(.ready)
        guard case .go? = channel.receive() else {
            throw LoadError.workerFailed(app: app, reason: "the fleet did not say go")
        }
        let finished = ProgressCounter()
        let done = DispatchSemaphore(value: 0)
        let reporter = Thread {
            while done.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                channel.send(.progress(finished.value))
            }
        }
        reporter.start()
        let result = worker.run(progress: finished)
        done.signal()
        channel.send(.progress(finished.value))
        channel.send(.finished(result))
    }
}
