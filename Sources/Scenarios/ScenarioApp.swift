import Foundation
import Synchronization

/// A simulated app as the runner drives it: in this process (``LocalScenarioApp``) or in a
/// process of its own (``ProcessScenarioApp``). Every call may come from any thread.
protocol ScenarioApp: Sendable {
    var bundleID: String { get }
    /// Why the app is gone (its process exited, and what it said), or nil while it runs.
    var exitReason: String? { get }
    /// Performs `operation` and says how it ended; failures are outcomes, not errors.
    func perform(_ operation: ScenarioOperation) -> OperationOutcome
    /// Starts `job`; `onRun` is called after each run, from the job's own thread.
    func start(_ job: BackgroundJob, onRun: @escaping @Sendable (OperationOutcome) -> Void)
    /// Ends the job named `name` and returns once its current run has finished.
    func stop(job name: String)
    /// Moves the app's token clock forward.
    func advanceClock(by seconds: Double)
    /// Ends every job and releases the app.
    func close()
}

/// Where a scenario's apps run.
public enum AppLauncher: Sendable {
    /// On threads of this process, on the runner's store.
    case inProcess
    /// Each in a process of its own: `executable` run with `arguments(bundleID)`, which must
    /// serve ``ScenarioWorker`` on the same storage as the runner.
    case processes(executable: URL, arguments: @Sendable (_ bundleID: String) -> [String])
}

/// An app's token clock: the real time plus the offset `advance-clock` steps added, so access
/// tokens expire on the scenario's schedule while wall-clock timings stay real.
final class AppClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}

/// Runs `body(0..<count)` each on a thread of its own and waits for all. Unlike
/// `DispatchQueue.concurrentPerform`, which uses about one thread per core, every call starts
/// at once: the calls block on the keyring, not on the CPU.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
