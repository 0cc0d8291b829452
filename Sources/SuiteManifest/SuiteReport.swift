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
        var line = "\(Self.counted(errorCount, "error")), \(Self.counted(warningCount, "warning"))"
        if infoCount > 0 { line += ", \(infoCount) info" }
        return line
    }

    private func count(_ severity: Severity) -> Int {
        findings.count { $0.severity == severity }
    }

    static func counted(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
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
