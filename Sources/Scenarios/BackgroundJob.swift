import Foundation
import SharedKeychain
import Synchronization

/// `- background: refresh` / `app: ...` / `do: token acquire` / `every: 100ms` / `times: 20`:
/// an operation an app repeats on its own (its own thread, in its own process) while the
/// following steps run, until it has run `times` times or a `stop` step ends it.
public struct BackgroundJob: Sendable, Hashable, Codable {
    /// The job's name, unique in the scenario, for `wait` and `stop`.
    public var name: String
    /// The bundle ID of the app that runs it.
    public var app: String
    public var operation: ScenarioOperation
    /// The pause after each run; zero runs back to back.
    public var every: WrittenDuration
    /// How many runs; nil: until stopped.
    public var times: Int?

    /// - Parameters: see the properties.
    public init(name: String, app: String, operation: ScenarioOperation, every: WrittenDuration = WrittenDuration(seconds: 0), times: Int? = nil) {
        self.name = name
        self.app = app
        self.operation = operation
        self.every = every
        self.times = times
    }

    static let ownKeys = ["background", "app", "do", "every", "times"]

    init(from container: KeyedDecodingContainer<StepKey>) throws {
        operation = try ScenarioOperation(from: container, alongside: Self.ownKeys, in: "a background step")
        name = try container.decode(String.self, "background")
        app = try container.decode(String.self, "app")
        every = try container.pauseIfPresent("every") ?? WrittenDuration(seconds: 0)
        times = try container.countIfPresent("times")
        if name.trimmingCharacters(in: .whitespaces).isEmpty { throw container.failure("background", "a job needs a name") }
    }
}

/// A background job's loop on a thread of its own: run, report, pause `every`, until it has run
/// `times` times or is stopped. Stopping interrupts the pause, not a run.
final class JobThread: Sendable {
    private let job: BackgroundJob
    private let body: @Sendable () -> OperationOutcome
    private let onRun: @Sendable (OperationOutcome) -> Void
    private let stopping = Atomic<Bool>(false)
    /// Signalled by `stop`, so a pause ends at once.
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(job: BackgroundJob, body: @escaping @Sendable () -> OperationOutcome, onRun: @escaping @Sendable (OperationOutcome) -> Void) {
        self.job = job
        self.body = body
        self.onRun = onRun
    }

    func start() {
        Thread { [self] in
            var runs = 0
            while !stopping.load(ordering: .acquiring), job.times.map({ runs < $0 }) ?? true {
                onRun(body())
                runs += 1
                if job.every.seconds > 0, wake.wait(timeout: .now() + job.every.seconds) == .success { break }
            }
            finished.signal()
        }.start()
    }

    /// Ends the loop and waits for it.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
        finished.signal()
    }
}

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
