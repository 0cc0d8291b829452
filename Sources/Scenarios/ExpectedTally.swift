/// What a `stop` step asserts about a background job's runs: `{runs: 10, ok: {at-least: 8},
/// failed: 0}`.
public struct ExpectedTally: Sendable, Hashable, Decodable, CustomStringConvertible {
    public var runs: CountRange?
    public var ok: CountRange?
    public var failed: CountRange?

    /// - Parameters: see the properties.
    public init(runs: CountRange? = nil, ok: CountRange? = nil, failed: CountRange? = nil) {
        self.runs = runs
        self.ok = ok
        self.failed = failed
    }

    /// Whether `tally` meets every part.
    public func isMet(by tally: JobTally) -> Bool {
        (runs?.contains(tally.runs) ?? true) && (ok?.contains(tally.ok) ?? true) && (failed?.contains(tally.failed) ?? true)
    }

    /// `runs 10, failed at least 1`.
    public var description: String {
        [runs.map { "runs \($0)" }, ok.map { "ok \($0)" }, failed.map { "failed \($0)" }].compactMap { $0 }.joined(separator: ", ")
    }

    /// Reads the mapping; at least one of `runs`, `ok`, `failed`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StepKey.self)
        try container.rejectUnknownKeys(allowed: ["runs", "ok", "failed"], in: "the expect of a stop step")
        runs = try container.decodeIfPresent(CountRange.self, "runs")
        ok = try container.decodeIfPresent(CountRange.self, "ok")
        failed = try container.decodeIfPresent(CountRange.self, "failed")
        guard runs != nil || ok != nil || failed != nil else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "expect of a stop step needs runs, ok or failed"))
        }
    }
}
