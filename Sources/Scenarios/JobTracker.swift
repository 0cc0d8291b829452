import Foundation
import Synchronization

/// The runner's record of background jobs: their tallies, and waiting for a number of runs.
final class JobTracker: Sendable {
    private struct Job {
        let job: BackgroundJob
        var tally = JobTally()
    }

    private let jobs = Mutex<[String: Job]>([:])
    /// Signalled after every run, so a waiter re-checks.
    private let ran = DispatchSemaphore(value: 0)

    func begin(_ job: BackgroundJob) {
        jobs.withLock { $0[job.name] = Job(job: job) }
    }

    func record(_ name: String, _ outcome: OperationOutcome) {
        jobs.withLock { $0[name]?.tally.record(outcome) }
        ran.signal()
    }

    func tally(_ name: String) -> JobTally {
        jobs.withLock { $0[name]?.tally ?? JobTally() }
    }

    /// Waits until job `name` has run `runs` times. `isGone` is asked between runs: when its app
    /// has gone away, the wait ends with false.
    func wait(for name: String, runs: Int, isGone: () -> Bool) -> Bool {
        while tally(name).runs < runs {
            if ran.wait(timeout: .now() + .milliseconds(250)) == .timedOut, isGone() { return false }
        }
        return true
    }

    /// Every job begun, in name order, with its tally.
    func summaries() -> [JobSummary] {
        jobs.withLock { jobs in
            jobs.values.sorted { $0.job.name < $1.job.name }.map {
                JobSummary(name: $0.job.name, app: $0.job.app, operation: $0.job.operation.description, tally: $0.tally)
            }
        }
    }
}
