import Foundation

/// What one run of a hazard did: the steps, what each app lost and who caused it, the numbers
/// that decide the outcome, the audit trail, and what the mitigations do not prevent.
/// Holds no secret: tokens and item data never enter a report.
public struct HazardReport: Sendable, Hashable, Codable {
    /// The hazard's name (`wipe-all`).
    public var hazard: String
    /// Whether the mitigations were on.
    public var mitigated: Bool
    /// The mitigations in force (`guarded-delete`, `audit`, `snapshot`, `per-app-items`...).
    public var mitigations: [String]
    /// The store the simulated apps shared (`memory`, `secret-service`).
    public var store: String
    /// The group(s) the scenario used.
    public var groups: [String]
    /// What happened, in order, one line each.
    public var steps: [String]
    /// Per app: how many of its items were deleted, and by whom.
    public var losses: [AppLoss]
    /// The numbers the outcome rests on (`failed refreshes`, `lost updates`...).
    public var metrics: [Metric]
    /// The journal of the audited group, when audit was on.
    public var audit: [AuditEntry]
    /// The outcome in one sentence.
    public var verdict: String
    /// What the mitigation does not prevent, said plainly.
    public var limits: [String]

    /// An empty report for `hazard`; scenarios fill it in.
    public init(hazard: String, mitigated: Bool, store: String) {
        self.hazard = hazard
        self.mitigated = mitigated
        self.mitigations = []
        self.store = store
        self.groups = []
        self.steps = []
        self.losses = []
        self.metrics = []
        self.audit = []
        self.verdict = ""
        self.limits = []
    }

    /// The metric named `name`, if recorded.
    public func metric(_ name: String) -> Int? { metrics.first { $0.name == name }?.value }

    mutating func step(_ line: String) { steps.append(line) }

    mutating func record(_ name: String, _ value: Int) {
        metrics.removeAll { $0.name == name }
        metrics.append(Metric(name: name, value: value))
    }
}

/// One number of a hazard report.
public struct Metric: Sendable, Hashable, Codable {
    /// What it counts (`failed refreshes`).
    public var name: String
    /// The count.
    public var value: Int

    /// - Parameters: see the properties.
    public init(name: String, value: Int) {
        self.name = name
        self.value = value
    }
}
