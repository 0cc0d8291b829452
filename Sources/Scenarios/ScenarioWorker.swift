import Foundation
import KeychainStorage
import Synchronization

/// The app-process side of a scenario run in processes: one simulated app serving
/// ``WorkerMessage`` requests from standard input until it ends. Each request runs on a
/// thread of its own, so operations of one app in a `concurrent` block overlap.
public enum ScenarioWorker {
    /// Serves `bundleID` of `scenario` on `store`; returns when standard input ends.
    public static func serve(scenario: Scenario, bundleID: String, store: any ItemStore) {
        let output = Output()
        let app: LocalScenarioApp
        do {
            let suiteApp = try scenario.suite.app(bundleID: bundleID)
            app = try LocalScenarioApp(app: suiteApp, store: store, policy: scenario.policy)
        } catch {
            output.send(.failed(message: "\(error)"))
            return
        }
        output.send(.ready)
        let requests = DispatchGroup()
        while let line = readLine() {
            guard let message = WorkerMessage(line: line) else { continue }
            requests.enter()
            Thread {
                defer { requests.leave() }
                switch message {
                case .perform(let id, let operation):
                    output.send(.result(id: id, outcome: app.perform(operation)))
                case .start(let job):
                    app.start(job) { output.send(.jobRun(job: job.name, outcome: $0)) }
                case .stop(let id, let job):
                    app.stop(job: job)
                    output.send(.done(id: id))
                case .advanceClock(let id, let seconds):
                    app.advanceClock(by: seconds)
                    output.send(.done(id: id))
                case .ready, .failed, .result, .jobRun, .done:
                    break
                }
            }.start()
        }
        requests.wait()
        app.close()
    }

    /// Standard output, one whole line at a time from any thread.
    private final class Output: Sendable {
        private let lock = Mutex(())

        func send(_ message: WorkerMessage) {
            let data = Data((message.line + "\n").utf8)
            lock.withLock { _ in FileHandle.standardOutput.write(data) }
        }
    }
}
