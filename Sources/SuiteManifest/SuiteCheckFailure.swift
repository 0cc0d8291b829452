import SharedKeychain

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

    /// `suite check of <manifest> found N errors`.
    public var message: String {
        let counts = strict
            ? "\(SuiteReport.counted(errorCount, "error")) and \(SuiteReport.counted(warningCount, "warning")) (--strict)"
            : SuiteReport.counted(errorCount, "error")
        return "suite check of \(manifest) found \(counts)"
    }
}
