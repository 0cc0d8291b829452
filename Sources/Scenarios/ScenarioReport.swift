import Foundation

/// What a scenario run did: the timeline, each background job's tally, and a verdict per
/// assertion. Never item data or tokens.
public struct ScenarioReport: Sendable, Codable {
    /// How the apps ran.
    public enum Mode: String, Sendable, Codable {
        /// Each app in a process of its own.
        case processes
        /// Every app in the runner's process, on threads.
        case inProcess = "in-process"
    }

    public let name: String
    public let summary: String?
    public let file: String
    public let mode: Mode
    /// The storage's name (`secret-service`, `memory`).
    public let store: String
    /// The apps' bundle IDs, in order of first use.
    public let apps: [String]
    public let started: Date
    /// How long the run took, in seconds.
    public let seconds: Double
    /// Every operation and control step, by start time.
    public let timeline: [TimelineEvent]
    public let jobs: [JobSummary]
    public let verdicts: [ScenarioVerdict]

    /// Whether every assertion held.
    public let passed: Bool
    /// How many assertions failed.
    public var failedCount: Int { verdicts.count(where: { !$0.passed }) }

    init(
        name: String, summary: String?, file: String, mode: Mode, store: String, apps: [String], started: Date,
        seconds: Double, timeline: [TimelineEvent], jobs: [JobSummary], verdicts: [ScenarioVerdict]
    ) {
        self.name = name
        self.summary = summary
        self.file = file
        self.mode = mode
        self.store = store
        self.apps = apps
        self.started = started
        self.seconds = seconds
        self.timeline = timeline
        self.jobs = jobs
        self.verdicts = verdicts
        passed = verdicts.allSatisfy(\.passed)
    }
}

/// The verdict on one assertion (`expect`) of a scenario.
public struct ScenarioVerdict: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 1-based step.
    public var step: Int
    /// Who did what: `com.contoso.calendar token accounts`, `job refresh`.
    public var subject: String
    public var expected: String
    public var observed: String
    public var passed: Bool

    /// `✔ step 3, com.contoso.calendar token accounts: expected ok, count 1; got ok, count 1`.
    public var description: String {
        "\(passed ? "✔" : "✘") step \(step), \(subject): expected \(expected); got \(observed)"
    }
}

/// One line of a scenario's timeline: an operation an app performed (by a step or a
/// background job), or a control step (a job stopped, the clock moved).
public struct TimelineEvent: Sendable, Hashable, Codable {
    /// Seconds from the start of the scenario to the start of the operation.
    public var time: Double
    /// The 1-based step that caused it (for job runs: the `background` step).
    public var step: Int
    /// The app's bundle ID; `*` for every app.
    public var app: String
    /// The background job that ran it, if any.
    public var job: String?
    /// What was done: `token acquire alice@contoso.com`, `stop refresh`.
    public var operation: String
    /// How the operation ended; nil for control steps.
    public var outcome: OperationOutcome?
    /// What a control step did (`12 runs, 9 ok, 3 failed`).
    public var note: String?
}

/// How a background job ended.
public struct JobSummary: Sendable, Hashable, Codable {
    public var name: String
    public var app: String
    public var operation: String
    public var tally: JobTally
}

/// How a background job's runs ended so far.
public struct JobTally: Sendable, Hashable, Codable, CustomStringConvertible {
    public var runs = 0
    public var ok = 0
    /// Runs that ended with any status but success, by status or code name.
    public var failures: [String: Int] = [:]

    /// - Parameters: none; a job starts with no runs.
    public init() {}

    /// Runs that did not succeed.
    public var failed: Int { runs - ok }

    /// Counts `outcome`.
    mutating func record(_ outcome: OperationOutcome) {
        runs += 1
        if outcome.status == .success {
            ok += 1
        } else {
            failures[outcome.code ?? outcome.status.name, default: 0] += 1
        }
    }

    /// `12 runs, 9 ok, 3 failed (interaction_required 3)`.
    public var description: String {
        var text = "\(runs.counted("run")), \(ok) ok, \(failed) failed"
        if !failures.isEmpty {
            text += " (" + failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        return text
    }
}
