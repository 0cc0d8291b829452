import Foundation

extension SuiteReport {
    /// The report for people: each app with its findings (or `ok`), then suite-wide findings,
    /// then the summary line.
    public var text: String {
        var lines = ["suite \(manifest): \(Self.counted(apps.count, "app"))", ""]
        for app in apps {
            lines.append(app.name.map { "\($0) (\(app.app))" } ?? app.app)
            lines += Self.lines(for: findings(for: app.app))
        }
        let suiteWide = findings(for: nil)
        if !suiteWide.isEmpty {
            lines.append("whole suite")
            lines += Self.lines(for: suiteWide)
        }
        lines += ["", summaryLine]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func lines(for findings: [Finding]) -> [String] {
        guard !findings.isEmpty else { return ["  ok"] }
        return findings.map { finding in
            let severity = finding.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            return "  \(severity) \(finding.rule.rawValue): \(finding.message)"
        }
    }
}
