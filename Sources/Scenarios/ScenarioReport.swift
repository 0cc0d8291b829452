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
