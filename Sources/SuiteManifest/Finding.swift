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
