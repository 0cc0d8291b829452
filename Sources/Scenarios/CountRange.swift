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
