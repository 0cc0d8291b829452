import Foundation
import SharedKeychain

/// A scenario run as text, streamed as it happens: a header, then a timeline line per event; the
/// report's own text (``ScenarioReport/text``) follows. Never item data or tokens (outcomes hold
/// none). Outcomes quote what items and the scenario file say, so every line is escaped
/// (``DisplayText``).
public struct ScenarioTimelineText: Sendable {
    public let scenario: Scenario
    private let appWidth: Int

    public init(scenario: Scenario) {
        self.scenario = scenario
        appWidth = max(scenario.apps.map(\.bundleID.count).max() ?? 0, 3)
    }

    /// The scenario's name, apps, `mode` (`as processes`) and store, then the timeline's heading.
    public func header(mode: String, store: String) -> String {
        var text = "scenario \(DisplayText(scenario.name)): \(scenario.apps.count.counted("app")) \(mode) on \(store)\n"
        if let summary = scenario.summary { text += "  \(DisplayText(summary, limit: .max))\n" }
        return text + "\n" + "    TIME  STEP  \(pad("APP"))  OPERATION -> OUTCOME\n"
    }

    /// One line of the timeline.
    public func line(_ event: TimelineEvent) -> String {
        let time = String(format: "%8.3f", event.time)
        let step = String(event.step).padding(toLength: 4, withPad: " ", startingAt: 0)
        let operation = (event.job.map { "[\($0)] " } ?? "") + event.operation
        let result = event.outcome.map(\.description) ?? event.note ?? "done"
        return "\(time)  \(step)  \(pad(DisplayText(event.app).description))  \(DisplayText("\(operation) -> \(result)", limit: .max))\n"
    }

    private func pad(_ text: String) -> String { text.padding(toLength: appWidth, withPad: " ", startingAt: 0) }
}

/// A finished scenario run as text: the jobs' tallies, the verdicts and the result.
extension ScenarioReport: TextReport {
    /// The jobs' tallies, the verdicts and the result: what follows the timeline.
    public var text: String {
        let report = self
        var text = ""
        if !report.jobs.isEmpty {
            text += "\njobs:\n"
            for job in report.jobs { text += "  \(DisplayText("\(job.name) (\(job.app) \(job.operation)): \(job.tally)", limit: .max))\n" }
        }
        text += "\nassertions:\n"
        if report.verdicts.isEmpty { text += "  none\n" }
        for verdict in report.verdicts { text += "  \(DisplayText(verdict.description, limit: .max))\n" }
        let passed = report.verdicts.count - report.failedCount
        text += "\n\(passed) of \(report.verdicts.count.counted("assertion")) passed"
        text += String(format: " in %.2f s", report.seconds) + (report.passed ? "" : ": FAILED") + "\n"
        return text
    }
}
