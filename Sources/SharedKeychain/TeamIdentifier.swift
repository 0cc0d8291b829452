/// An Apple developer team ID: ten upper-case letters or digits (`ABCDE12345`). It prefixes every
/// access group of the team's apps, which is what keeps one vendor's groups from another's.
public struct TeamIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// - Throws: ``AccessGroupError/invalidTeamID(_:)`` quoting the value.
    public init(_ rawValue: String) throws(AccessGroupError) {
        guard rawValue.utf8.count == 10,
              rawValue.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        else { throw .invalidTeamID(rawValue) }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(String.self)
        try self.init(value)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
