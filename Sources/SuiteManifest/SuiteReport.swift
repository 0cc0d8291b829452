import Foundation
import SharedKeychain

/// The findings of a suite check, in app order, suite-wide findings last.
public struct SuiteReport: Sendable, Hashable {
    /// The checked manifest's path.
    public let manifest: String
    /// The suite's apps, in manifest order.
    public let apps: [AppSummary]
    /// In app order, each app's in rule order; suite-wide findings last.
    public let findings: [Finding]

    /// An app as the report lists it.
    public struct AppSummary: Sendable, Hashable, Codable {
        /// The bundle ID.
        public let app: String
        /// The display name, if the manifest gives one.
        public let name: String?
    }

    /// The report of `findings` about `suite`, put in app order.
    public init(suite: Suite, findings: [Finding]) {
        manifest = suite.manifest.path
        apps = suite.apps.map { AppSummary(app: $0.bundleID, name: $0.name) }
        let order = Dictionary(suite.apps.enumerated().map { ($1.bundleID, $0) }, uniquingKeysWith: { first, _ in first })
        // Stable: within one app, findings keep the order the rules produced them in.
        self.findings = findings.enumerated().sorted { lhs, rhs in
            let left = lhs.element.app.flatMap { order[$0] } ?? Int.max
            let right = rhs.element.app.flatMap { order[$0] } ?? Int.max
            return left != right ? left < right : lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// How many findings have each severity.
    public var errorCount: Int { count(.error) }
    public var warningCount: Int { count(.warning) }
    public var infoCount: Int { count(.info) }

    /// True when there is no error; warnings and info do not fail a check.
    public var passed: Bool { errorCount == 0 }

    /// The findings about app `bundleID`, or about the whole suite for nil.
    public func findings(for bundleID: String?) -> [Finding] {
        findings.filter { $0.app == bundleID }
    }

    /// `2 errors, 1 warning`, with `, 3 info` when there is any.
    public var summaryLine: String {
        var line = "\(errorCount.counted("error")), \(warningCount.counted("warning"))"
        if infoCount > 0 { line += ", \(infoCount) info" }
        return line
    }

    private func count(_ severity: Severity) -> Int {
        findings.count { $0.severity == severity }
    }
}

extension SuiteReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case manifest, apps, findings, summary, passed
    }

    private struct Summary: Encodable {
        let errors: Int
        let warnings: Int
        let info: Int
    }

    /// `{"manifest", "apps": [{"app", "name"}], "findings": [{"severity", "rule", "app",
    /// "message"}], "summary": {"errors", "warnings", "info"}, "passed"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(manifest, forKey: .manifest)
        try container.encode(apps, forKey: .apps)
        try container.encode(findings, forKey: .findings)
        try container.encode(Summary(errors: errorCount, warnings: warningCount, info: infoCount), forKey: .summary)
        try container.encode(passed, forKey: .passed)
    }
}

extension SuiteReport: TextReport {
    /// The report for people: each app with its findings (or `ok`), then suite-wide findings,
    /// then the summary line.
    public var text: String {
        var lines = ["suite \(DisplayText(manifest)): \(apps.count.counted("app"))", ""]
        for app in apps {
            lines.append(DisplayText(app.name.map { "\($0) (\(app.app))" } ?? app.app).description)
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
            // A message quotes the manifest's values (cut where they are long); escape the rest.
            return "  \(severity) \(finding.rule.rawValue): \(DisplayText(finding.message, limit: .max))"
        }
    }
}

/// One result of a suite check: which rule, how severe, which app, and what to do about it.
public struct Finding: Sendable, Hashable, Codable {
    /// Whether it breaks sign-in (error), probably will (warning), or is worth knowing (info).
    public let severity: Severity
    /// The rule that produced it.
    public let rule: CheckRule
    /// The bundle ID of the app concerned; nil for a finding about the whole suite.
    public let app: String?
    /// What is wrong, what happens at runtime, and what to change.
    public let message: String

    /// A finding of `rule` about app `app` (a bundle ID; nil for the whole suite).
    public init(_ severity: Severity, _ rule: CheckRule, app: String?, _ message: String) {
        self.severity = severity
        self.rule = rule
        self.app = app
        self.message = message
    }
}

/// How much a finding matters: an error breaks sign-in or sharing at runtime, a warning is a
/// likely problem, info is worth knowing.
public enum Severity: String, Sendable, Codable, CaseIterable, Comparable {
    case error
    case warning
    case info

    private var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .info: 2
        }
    }

    /// Errors sort first.
    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// Thrown after a report with errors has been shown, so that a failed check exits with the
/// errSecParam status like any other bad input.
public struct SuiteCheckFailure: Error, Sendable, Hashable, StatusReporting {
    /// The checked manifest's path.
    public let manifest: String
    /// How many findings were errors.
    public let errorCount: Int
    /// How many findings were warnings.
    public let warningCount: Int
    /// Whether warnings were counted as failures (`--strict`).
    public let strict: Bool

    /// The failure for `report`, or nil when it passes: no errors, and no warnings if `strict`.
    public init?(_ report: SuiteReport, strict: Bool = false) {
        guard !report.passed || (strict && report.warningCount > 0) else { return nil }
        manifest = report.manifest
        errorCount = report.errorCount
        warningCount = report.warningCount
        self.strict = strict
    }

    /// errSecParam: the configuration is at fault; the CLI exits with its code.
    public var status: KeychainStatus { .param }

    /// `suite check of <manifest> found N errors`, in the front end's words when it has its own
    /// (``FrontEndWording``: it names its strict mode).
    public var message: String {
        FrontEndWording.words(for: self, neutral: message(strictMode: "strict"))
    }

    /// The message with the strict mode called `strictMode`.
    public func message(strictMode: String) -> String {
        let counts = strict
            ? "\(errorCount.counted("error")) and \(warningCount.counted("warning")) (\(strictMode))"
            : errorCount.counted("error")
        return "suite check of \(DisplayText(manifest)) found \(counts)"
    }
}
