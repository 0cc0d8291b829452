/// What a step asserts about its operation's outcome: `expect: ok`, `expect: errSecItemNotFound`,
/// or `expect: {status: ok, count: 1, value: com.contoso.calendar}`. A mapping without `status`
/// expects `ok`.
public struct ExpectedOutcome: Sendable, Hashable, Decodable, CustomStringConvertible {
    public var status: ExpectedStatus
    /// How many items or accounts the operation returned, changed or deleted.
    public var count: CountRange?
    /// The operation's reported value: a username list, a token source, a counter, a bundle ID.
    public var value: String?

    /// - Parameters: see the properties.
    public init(status: ExpectedStatus = .ok, count: CountRange? = nil, value: String? = nil) {
        self.status = status
        self.count = count
        self.value = value
    }

    /// Whether `outcome` meets every part.
    public func isMet(by outcome: OperationOutcome) -> Bool {
        guard status.matches(outcome) else { return false }
        if let count, !(outcome.count.map(count.contains) ?? false) { return false }
        if let value, outcome.value != value { return false }
        return true
    }

    /// `ok, count at least 1, value 'com.contoso.calendar'`.
    public var description: String {
        var parts = [status.description]
        if let count { parts.append("count \(count)") }
        if let value { parts.append("value '\(value)'") }
        return parts.joined(separator: ", ")
    }

    /// Reads the text form or the mapping.
    public init(from decoder: any Decoder) throws {
        guard let container = try? decoder.container(keyedBy: StepKey.self) else {
            self.init(status: try decoder.singleValueContainer().decode(ExpectedStatus.self))
            return
        }
        try container.rejectUnknownKeys(allowed: ["status", "count", "value"], in: "expect")
        self.init(
            status: try container.decodeIfPresent(ExpectedStatus.self, "status") ?? .ok,
            count: try container.decodeIfPresent(CountRange.self, "count"),
            value: try container.decodeIfPresent(String.self, "value"))
    }
}
