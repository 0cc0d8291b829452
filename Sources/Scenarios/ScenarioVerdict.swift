/// The verdict on one assertion (`expect`) of a scenario.
public struct ScenarioVerdict: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The 1-based step.
    public var step: Int
    /// Who did what: `com.contoso.calendar token accounts`, `job refresh`.
    public var subject: String
    public var expected: String
    public var observed: String
    public var passed: Bool

    /// `✔ step 3, com.contoso.calendar token accounts: expected ok, count 1; got ok, count 1`.
    public var description: String {
        "\(passed ? "✔" : "✘") step \(step), \(subject): expected \(expected); got \(observed)"
    }
}
