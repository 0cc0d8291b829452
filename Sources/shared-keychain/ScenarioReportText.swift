import Foundation
import Scenarios

/// A scenario run as text: a header, a timeline line per event as it happens, then the jobs'
/// tallies and the verdicts. Never item data or tokens (outcomes hold none).
struct ScenarioReportText {
    let scenario: Scenario
    private let appWidth: Int

    init(scenario: Scenario) {
        self.scenario = scenario
        appWidth = max(scenario.apps.map(\.bundleID.count).max() ?? 0, 3)
    }

    func header(mode: String, store: String) -> String {
        var text = "scenario \(scenario.name): \(scenario.apps.count) app\(scenario.apps.count == 1 ? "" : "s") \(mode) on \(store)\n"
        if let summary = scenario.summary { text += "  \(summary)\n" }
        return text + "\n" + "    TIME  STEP  \(pad("APP"))  OPERATION -> OUTCOME\n"
    }

    func line(_ event: TimelineEvent) -> String {
        let time = String(format: "%8.3f", event.time)
        let step = String(event.step).padding(toLength: 4, withPad: " ", startingAt: 0)
        let operation = (event.job.map { "[\($0)] " } ?? "") + event.operation
        let result = event.outcome.map(\.description) ?? event.note ?? "done"
        return "\(time)  \(step)  \(pad(event.app))  \(operation) -> \(result)\n"
    }

    func footer(_ report: ScenarioReport) -> String {
        var text = ""
        if !report.jobs.isEmpty {
            text += "\njobs:\n"
            for job in report.jobs { text += "  \(job.name) (\(job.app) \(job.operation)): \(job.tally)\n" }
        }
        text += "\nassertions:\n"
        if report.verdicts.isEmpty { text += "  none\n" }
        for verdict in report.verdicts { text += "  \(verdict)\n" }
        let passed = report.verdicts.count - report.failedCount
        text += "\n\(passed) of \(report.verdicts.count) assertion\(report.verdicts.count == 1 ? "" : "s") passed"
        text += String(format: " in %.2f s", report.seconds) + (report.passed ? "" : ": FAILED") + "\n"
        return text
    }

    private func pad(_ text: String) -> String { text.padding(toLength: appWidth, withPad: " ", startingAt: 0) }
}
