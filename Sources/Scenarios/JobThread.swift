import Foundation
import Synchronization

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
