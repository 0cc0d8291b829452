import Device
import Foundation
import KeychainStorage
import SharedKeychain
import Simulation
import Synchronization
import TokenCache

/// Runs a scenario: starts its apps (in this process or each in its own), performs the steps in
/// order, runs `concurrent` operations at once and background jobs alongside, and judges every
/// `expect`. A failed operation is an outcome, not an error: only the apps themselves failing
/// stops a run.
public struct ScenarioRunner: Sendable {
    public let scenario: Scenario
    /// The shared storage: the apps' store in process, and the one their processes open.
    public let store: any ItemStore
    /// What `device:` steps act on; nil refuses a scenario that has any.
    public let device: (any DeviceControl)?
    /// Where the apps in this process report items of the group they cannot read, or nil.
    public let skippedItems: SkippedItemReport?
    /// The device's fault plan, for the apps in this process; nil injects nothing.
    public let faults: (any KeychainFaultSource)?

    /// - Parameters: the scenario, the store its apps share, the device around it, where
    ///   unreadable items are reported, and the device's fault plan (``Device/faultPlan``):
    ///   an operation it fails reports the injected status, its message saying so.
    public init(
        scenario: Scenario, store: any ItemStore, device: (any DeviceControl)? = nil, skippedItems: SkippedItemReport? = nil,
        faults: (any KeychainFaultSource)? = nil
    ) {
        self.scenario = scenario
        self.store = store
        self.device = device
        self.skippedItems = skippedItems
        self.faults = faults
    }

    /// Empties every group the scenario's apps can reach (and the audit journals of its
    /// policy); returns how many items were deleted.
    public func emptyGroups() throws(ScenarioError) -> Int {
        let groups = try scenario.groups()
        do { return try store.delete(matching: ItemQuery(groups: groups)) } catch {
            throw .appFailed(app: "runner", reason: "cannot empty the scenario's groups: \(error.description)")
        }
    }

    /// Runs every step.
    /// - Parameter onEvent: called with each timeline event as it happens, from any thread.
    /// - Throws: ``ScenarioError/appFailed(app:reason:)`` when an app cannot start or its
    ///   process goes away.
    public func run(
        launcher: AppLauncher, onEvent: @escaping @Sendable (TimelineEvent) -> Void = { _ in }
    ) throws(ScenarioError) -> ScenarioReport {
        for (index, step) in scenario.steps.enumerated() {
            if case .launch = step, device == nil {
                throw .invalidStep(path: scenario.file.path, step: index + 1, reason: "launch steps need a device: run the scenario with the CLI (its state directory is the device)")
            }
            guard case .device(let action) = step else { continue }
            guard let device else {
                throw .invalidStep(path: scenario.file.path, step: index + 1, reason: "device steps need a device: run the scenario with the CLI (its state directory is the device)")
            }
            if let refusal = device.refusal(of: action) { throw .invalidStep(path: scenario.file.path, step: index + 1, reason: refusal) }
        }
        let apps = try launch(launcher)
        defer { apps.values.forEach { $0.close() } }
        let run = Run(scenario: scenario, apps: apps, device: device, onEvent: onEvent)
        try run.perform()
        return ScenarioReport(
            name: scenario.name, summary: scenario.summary, file: scenario.file.path,
            mode: launcher.mode, store: store.name, apps: scenario.apps.map(\.bundleID), started: run.started,
            seconds: Date().timeIntervalSince(run.started), timeline: run.timeline, jobs: run.jobs.summaries(),
            verdicts: run.verdicts)
    }

    /// The scenario's apps, by lowercased bundle ID; processes start at once.
    private func launch(_ launcher: AppLauncher) throws(ScenarioError) -> [String: any ScenarioApp] {
        let suiteApps = scenario.apps
        let keychains = AppKeychains(store: store, policy: scenario.policy, faults: faults)
        let skippedItems = skippedItems
        let launched = StartBarrier.run(suiteApps.count) { index -> Result<any ScenarioApp, ScenarioError> in
            let app = suiteApps[index]
            do throws(ScenarioError) {
                switch launcher {
                case .inProcess:
                    return .success(try LocalScenarioApp(app: app, keychains: keychains, skippedItems: skippedItems))
                case .processes(let executable, let arguments):
                    return .success(try ProcessScenarioApp(
                        bundleID: app.bundleID, executable: executable, arguments: arguments(app.bundleID)))
                }
            } catch {
                return .failure(error)
            }
        }
        var apps: [String: any ScenarioApp] = [:]
        var failure: ScenarioError?
        for (app, result) in zip(suiteApps, launched) {
            switch result {
            case .success(let launched): apps[app.bundleID.lowercased()] = launched
            case .failure(let error): failure = failure ?? error
            }
        }
        if let failure {
            apps.values.forEach { $0.close() }
            throw failure
        }
        return apps
    }
}

extension AppLauncher {
    var mode: ScenarioReport.Mode {
        switch self {
        case .inProcess: .inProcess
        case .processes: .processes
        }
    }
}

/// One run's state: the clock origin, the timeline, the jobs and the verdicts.
private final class Run: Sendable {
    let scenario: Scenario
    let apps: [String: any ScenarioApp]
    let device: (any DeviceControl)?
    let onEvent: @Sendable (TimelineEvent) -> Void
    let started = Date()
    let jobs = JobTracker()
    private let events = Mutex<[TimelineEvent]>([])
    private let judged = Mutex<[ScenarioVerdict]>([])
    private let jobApps = Mutex<[String: String]>([:])
    /// Launches waiting for protectedDataDidBecomeAvailable, with their step numbers.
    private let waitingLaunches = Mutex<[(step: Int, launch: LaunchStep)]>([])

    init(
        scenario: Scenario, apps: [String: any ScenarioApp], device: (any DeviceControl)?,
        onEvent: @escaping @Sendable (TimelineEvent) -> Void
    ) {
        self.scenario = scenario
        self.apps = apps
        self.device = device
        self.onEvent = onEvent
    }

    /// Every event, by start time.
    var timeline: [TimelineEvent] { events.withLock { $0 }.sorted { $0.time < $1.time } }
    var verdicts: [ScenarioVerdict] { judged.withLock { $0 } }

    func perform() throws(ScenarioError) {
        for (index, step) in scenario.steps.enumerated() {
            try perform(step, number: index + 1)
        }
        // Jobs still running end with the scenario.
        for (job, app) in jobApps.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            self.app(app).stop(job: job)
            control(step: scenario.steps.count, app: app, operation: "stop \(job) (end of scenario)", note: jobs.tally(job).description)
        }
        let stillWaiting = waitingLaunches.withLock { waiting -> [(step: Int, launch: LaunchStep)] in waiting }
        for (number, launch) in stillWaiting {
            verdict(ScenarioVerdict(
                step: number, subject: "\(launch.app) \(launch.description)", expected: launch.expect?.description ?? "ok",
                observed: "still waiting: the device never posted protectedDataDidBecomeAvailable", passed: false))
        }
    }

    private func perform(_ step: ScenarioStep, number: Int) throws(ScenarioError) {
        switch step {
        case .operation(let step):
            judge(step, outcome: operate(step, number: number), number: number)
        case .concurrent(let steps):
            let outcomes = StartBarrier.run(steps.count) { [self] index in
                if let delay = steps[index].delay, delay.seconds > 0 { Thread.sleep(forTimeInterval: delay.seconds) }
                return operate(steps[index], number: number)
            }
            for (step, outcome) in zip(steps, outcomes) { judge(step, outcome: outcome, number: number) }
        case .background(let job):
            jobs.begin(job)
            jobApps.withLock { $0[job.name] = job.app }
            app(job.app).start(job) { [self] outcome in
                jobs.record(job.name, outcome)
                record(TimelineEvent(
                    time: outcome.started.timeIntervalSince(started), step: number, app: job.app, job: job.name,
                    operation: job.operation.description, outcome: outcome))
            }
        case .wait(.time(let duration)):
            Thread.sleep(forTimeInterval: duration.seconds)
        case .wait(.job(let name, let runs)):
            let app = app(jobApps.withLock { $0[name] } ?? "")
            let target = runs ?? scenario.job(named: name)?.times ?? 1
            guard jobs.wait(for: name, runs: target, isGone: { app.exitReason != nil }) else {
                throw .appFailed(app: app.bundleID, reason: "\(app.exitReason ?? "it went away") (job '\(name)' was running)")
            }
        case .stop(let name, let expect):
            let bundleID = jobApps.withLock { $0.removeValue(forKey: name) } ?? ""
            app(bundleID).stop(job: name)
            let tally = jobs.tally(name)
            control(step: number, app: bundleID, operation: "stop \(name)", note: tally.description)
            if let expect {
                verdict(ScenarioVerdict(
                    step: number, subject: "job \(name)", expected: expect.description, observed: tally.description,
                    passed: expect.isMet(by: tally)))
            }
        case .advanceClock(let duration):
            apps.values.forEach { $0.advanceClock(by: duration.seconds) }
            control(step: number, app: "*", operation: "advance clock \(duration)", note: nil)
        case .device(let action):
            guard let device else { return }
            let posted: ProtectedDataEvent?
            do {
                let before = try device.lockState()
                control(step: number, app: "*", operation: "device \(action)", note: try device.perform(action))
                posted = ProtectedDataEvent(from: before, to: try device.lockState())
            } catch {
                throw .appFailed(app: "device", reason: "\(action) failed: \(String(describing: error))")
            }
            guard let posted else { return }
            control(step: number, app: "*", operation: posted.rawValue, note: nil)
            guard posted == .didBecomeAvailable else { return }
            let due = waitingLaunches.withLock { waiting -> [LaunchStep] in
                let due = waiting.map(\.launch)
                waiting.removeAll()
                return due
            }
            for launch in due {
                judge(launch.read, outcome: operate(launch.read, number: number), number: number)
            }
        case .launch(let launch):
            try perform(launch, number: number)
        }
    }

    /// Launches an app: its read now, or, when it waits for protected data that is not
    /// available, at the device step that posts protectedDataDidBecomeAvailable.
    private func perform(_ launch: LaunchStep, number: Int) throws(ScenarioError) {
        guard let device else { return }
        let state: DeviceLockState
        do { state = try device.lockState() } catch {
            throw .appFailed(app: "device", reason: "cannot read the lock state: \(String(describing: error))")
        }
        guard launch.prewarm || !state.locked else {
            throw .invalidStep(path: scenario.file.path, step: number, reason: "the user cannot open \(launch.app) on a locked device: unlock it first (device: unlock), or launch it as iOS does ahead of use (prewarm: true)")
        }
        let when = state.isBeforeFirstUnlock ? ", before the first unlock" : ""
        let waits = launch.waitsForProtectedData && !state.isProtectedDataAvailable
        control(
            step: number, app: launch.app, operation: launch.description,
            note: "isProtectedDataAvailable \(state.isProtectedDataAvailable)\(when)" + (waits ? "; reads nothing until protectedDataDidBecomeAvailable" : ""))
        if waits {
            waitingLaunches.withLock { $0.append((number, launch)) }
        } else {
            judge(launch.read, outcome: operate(launch.read, number: number), number: number)
        }
    }

    private func operate(_ step: OperationStep, number: Int) -> OperationOutcome {
        let outcome = app(step.app).perform(step.operation)
        record(TimelineEvent(
            time: outcome.started.timeIntervalSince(started), step: number, app: step.app, job: nil,
            operation: step.operation.description, outcome: outcome))
        return outcome
    }

    private func judge(_ step: OperationStep, outcome: OperationOutcome, number: Int) {
        guard let expect = step.expect else { return }
        verdict(ScenarioVerdict(
            step: number, subject: "\(step.app) \(step.operation)", expected: expect.description,
            observed: outcome.observed, passed: expect.isMet(by: outcome)))
    }

    private func control(step: Int, app: String, operation: String, note: String?) {
        record(TimelineEvent(
            time: Date().timeIntervalSince(started), step: step, app: app, job: nil, operation: operation, outcome: nil, note: note))
    }

    private func record(_ event: TimelineEvent) {
        events.withLock { $0.append(event) }
        onEvent(event)
    }

    private func verdict(_ verdict: ScenarioVerdict) {
        judged.withLock { $0.append(verdict) }
    }

    /// The app of a bundle ID the validator has checked.
    private func app(_ bundleID: String) -> any ScenarioApp {
        apps[bundleID.lowercased()] ?? MissingApp(bundleID: bundleID)
    }
}

extension Scenario {
    /// The background job started under `name`.
    func job(named name: String) -> BackgroundJob? {
        for case .background(let job) in steps where job.name == name { return job }
        return nil
    }
}

/// Stands in for an app the validator would have refused: every operation fails.
private struct MissingApp: ScenarioApp {
    let bundleID: String
    let exitReason: String? = nil
    func perform(_ operation: ScenarioOperation) -> OperationOutcome {
        OperationOutcome(started: Date(), seconds: 0, status: .param, message: "\(bundleID) is not an app of the scenario")
    }
    func start(_ job: BackgroundJob, onRun: @escaping @Sendable (OperationOutcome) -> Void) {}
    func stop(job name: String) {}
    func advanceClock(by seconds: Double) {}
    func close() {}
}
