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

    public var name: String
    public var summary: String?
    public var file: String
    public var mode: Mode
    /// The storage's name (`secret-service`, `memory`).
    public var store: String
    /// The apps' bundle IDs, in order of first use.
    public var apps: [String]
    public var started: Date
    /// How long the run took, in seconds.
    public var seconds: Double
    /// Every operation and control step, by start time.
    public var timeline: [TimelineEvent]
    public var jobs: [JobSummary]
    public var verdicts: [ScenarioVerdict]

    /// Whether every assertion held.
    public var passed: Bool { verdicts.allSatisfy(\.passed) }
    /// How many assertions failed.
    public var failedCount: Int { verdicts.count(where: { !$0.passed }) }

    private enum CodingKeys: String, CodingKey {
        case name, summary, file, mode, store, apps, started, seconds, timeline, jobs, verdicts, passed
    }

    /// Writes every property, and `passed`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encode(file, forKey: .file)
        try container.encode(mode, forKey: .mode)
        try container.encode(store, forKey: .store)
        try container.encode(apps, forKey: .apps)
        try container.encode(started, forKey: .started)
        try container.encode(seconds, forKey: .seconds)
        try container.encode(timeline, forKey: .timeline)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(verdicts, forKey: .verdicts)
        try container.encode(passed, forKey: .passed)
    }

    /// Reads a report written by ``encode(to:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        summary = try container.decodeIfPresent(String.self, forKey: .summary)
        file = try container.decode(String.self, forKey: .file)
        mode = try container.decode(Mode.self, forKey: .mode)
        store = try container.decode(String.self, forKey: .store)
        apps = try container.decode([String].self, forKey: .apps)
        started = try container.decode(Date.self, forKey: .started)
        seconds = try container.decode(Double.self, forKey: .seconds)
        timeline = try container.decode([TimelineEvent].self, forKey: .timeline)
        jobs = try container.decode([JobSummary].self, forKey: .jobs)
        verdicts = try container.decode([ScenarioVerdict].self, forKey: .verdicts)
    }

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
    }
}
