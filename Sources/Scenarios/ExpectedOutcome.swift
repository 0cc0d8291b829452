import SharedKeychain

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
        if let value { parts.append("value '\(DisplayText(value))'") }
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

/// How an operation should end: `ok`, a Keychain status by name or number
/// (`errSecItemNotFound`, `-34018`), or MSAL's `interaction_required`.
public enum ExpectedStatus: Sendable, Hashable, Decodable, CustomStringConvertible {
    case ok
    case status(KeychainStatus)
    /// A finer code than the status (`interaction_required`).
    case code(String)

    /// The codes the token cache reports besides statuses.
    static let codes = ["interaction_required"]

    /// Parses `ok`, `errSecItemNotFound`, `-25300` or `interaction_required`.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if ["ok", "success", KeychainStatus.success.name].contains(trimmed) {
            self = .ok
        } else if let status = KeychainStatus.allCases.first(where: { $0.name == trimmed || String($0.rawValue) == trimmed }) {
            self = status == .success ? .ok : .status(status)
        } else if Self.codes.contains(trimmed) {
            self = .code(trimmed)
        } else {
            return nil
        }
    }

    /// Whether `outcome` ended this way.
    public func matches(_ outcome: OperationOutcome) -> Bool {
        switch self {
        case .ok: outcome.status == .success
        case .status(let status): outcome.status == status
        case .code(let code): outcome.code == code
        }
    }

    /// `ok`, `errSecItemNotFound`, `interaction_required`.
    public var description: String {
        switch self {
        case .ok: "ok"
        case .status(let status): status.name
        case .code(let code): code
        }
    }

    /// Reads the text form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = (try? container.decode(String.self)) ?? (try? container.decode(Int.self)).map(String.init) ?? ""
        guard let parsed = ExpectedStatus(parsing: text) else {
            let names = ["ok"] + KeychainStatus.allCases.filter { $0 != .success }.map(\.name) + Self.codes
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "'\(text)' is not an outcome; use one of \(names.joined(separator: ", "))")
        }
        self = parsed
    }
}

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

/// A number an assertion accepts: exactly `3`, or `{at-least: 1}`, `{at-most: 2}`, or both.
public struct CountRange: Sendable, Hashable, Decodable, CustomStringConvertible {
    public var atLeast: Int?
    public var atMost: Int?

    /// - Parameters: the bounds, inclusive; nil leaves that side open.
    public init(atLeast: Int? = nil, atMost: Int? = nil) {
        self.atLeast = atLeast
        self.atMost = atMost
    }

    /// Exactly `count`.
    public static func exactly(_ count: Int) -> CountRange { CountRange(atLeast: count, atMost: count) }

    /// Whether `count` is in the range.
    public func contains(_ count: Int) -> Bool {
        (atLeast.map { count >= $0 } ?? true) && (atMost.map { count <= $0 } ?? true)
    }

    /// `3`, `at least 1`, `at most 2`, `1 to 3`.
    public var description: String {
        switch (atLeast, atMost) {
        case let (low?, high?) where low == high: "\(low)"
        case let (low?, high?): "\(low) to \(high)"
        case let (low?, nil): "at least \(low)"
        case let (nil, high?): "at most \(high)"
        case (nil, nil): "any number"
        }
    }

    /// Reads `3` or `{at-least: 1, at-most: 3}`.
    public init(from decoder: any Decoder) throws {
        if let exact = try? decoder.singleValueContainer().decode(Int.self) {
            self = .exactly(exact)
            return
        }
        let container = try decoder.container(keyedBy: StepKey.self)
        try container.rejectUnknownKeys(allowed: ["at-least", "at-most"], in: "a count")
        let atLeast = try container.decodeIfPresent(Int.self, "at-least")
        let atMost = try container.decodeIfPresent(Int.self, "at-most")
        guard atLeast != nil || atMost != nil else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "a count is a number, or has at-least and/or at-most"))
        }
        if let low = atLeast, let high = atMost, low > high {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath, debugDescription: "at-least \(low) is more than at-most \(high)"))
        }
        self.init(atLeast: atLeast, atMost: atMost)
    }
}
