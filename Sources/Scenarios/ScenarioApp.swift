import Foundation

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
