import Foundation

/// Where a scenario's apps run.
public enum AppLauncher: Sendable {
    /// On threads of this process, on the runner's store.
    case inProcess
    /// Each in a process of its own: `executable` run with `arguments(bundleID)`, which must
    /// serve ``ScenarioWorker`` on the same storage as the runner.
    case processes(executable: URL, arguments: @Sendable (_ bundleID: String) -> [String])
}
