/// How a background job's runs ended so far.
public struct JobTally: Sendable, Hashable, Codable, CustomStringConvertible {
    public var runs = 0
    public var ok = 0
    /// Runs that ended with any status but success, by status or code name.
    public var failures: [String: Int] = [:]

    /// - Parameters: none; a job starts with no runs.
    public init() {}

    /// Runs that did not succeed.
    public var failed: Int { runs - ok }

    /// Counts `outcome`.
    mutating func record(_ outcome: OperationOutcome) {
        runs += 1
        if outcome.status == .success {
            ok += 1
        } else {
            failures[outcome.code ?? outcome.status.name, default: 0] += 1
        }
    }

    /// `12 runs, 9 ok, 3 failed (interaction_required 3)`.
    public var description: String {
        var text = "\(runs) run\(runs == 1 ? "" : "s"), \(ok) ok, \(failed) failed"
        if !failures.isEmpty {
            text += " (" + failures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"
        }
        return text
    }
}
