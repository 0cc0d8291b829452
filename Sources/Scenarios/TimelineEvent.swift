/// One line of a scenario's timeline: an operation an app performed (by a step or a
/// background job), or a control step (a job stopped, the clock moved).
public struct TimelineEvent: Sendable, Hashable, Codable {
    /// Seconds from the start of the scenario to the start of the operation.
    public var time: Double
    /// The 1-based step that caused it (for job runs: the `background` step).
    public var step: Int
    /// The app's bundle ID; `*` for every app.
    public var app: String
    /// The background job that ran it, if any.
    public var job: String?
    /// What was done: `token acquire alice@contoso.com`, `stop refresh`.
    public var operation: String
    /// How the operation ended; nil for control steps.
    public var outcome: OperationOutcome?
    /// What a control step did (`12 runs, 9 ok, 3 failed`).
    public var note: String?
}
