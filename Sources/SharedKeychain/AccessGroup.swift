/// A keychain access group: a team ID and a group identifier, written `ABCDE12345.com.myapp.mycache`.
///
/// Entitlement files spell the team part as a build variable, `$(AppIdentifierPrefix)`, which
/// expands to the team ID followed by a dot; ``init(entitlement:teamID:)`` does that expansion.
public struct AccessGroup: Hashable, Sendable, Codable, CustomStringConvertible {
    public let teamID: TeamIdentifier
    /// The part after the team ID (`com.microsoft.adalcache`).
    public let identifier: String

    /// The group as Keychain Services stores it in `kSecAttrAccessGroup`.
    public var rawValue: String { "\(teamID.rawValue).\(identifier)" }
    public var description: String { rawValue }

    static let prefixVariables = ["$(AppIdentifierPrefix)", "$(TeamIdentifierPrefix)"]

    public init(teamID: TeamIdentifier, identifier: String) throws(AccessGroupError) {
        if let reason = Self.problem(with: identifier) {
            throw .malformedGroup(entry: "\(teamID.rawValue).\(identifier)", reason: reason)
        }
        self.teamID = teamID
        self.identifier = identifier
    }

    /// For values already checked with ``problem(with:)``.
    init(uncheckedTeamID teamID: TeamIdentifier, identifier: String) {
        self.teamID = teamID
        self.identifier = identifier
    }

    /// Parses a full group, `ABCDE12345.com.myapp.mycache`.
    public init(_ rawValue: String) throws(AccessGroupError) {
        guard let dot = rawValue.firstIndex(of: ".") else {
            throw .malformedGroup(entry: rawValue, reason: "it must start with a team ID and a dot, like 'ABCDE12345.com.myapp.mycache'")
        }
        let team: TeamIdentifier
        do { team = try TeamIdentifier(String(rawValue[..<dot])) } catch {
            throw .malformedGroup(entry: rawValue, reason: "'\(rawValue[..<dot])' before the first dot is not a team ID (10 upper-case letters or digits)")
        }
        try self.init(teamID: team, identifier: String(rawValue[rawValue.index(after: dot)...]))
    }

    /// Parses one entry of a `keychain-access-groups` entitlement for an app of team `teamID`:
    /// `$(AppIdentifierPrefix)com.myapp.mycache` or the already expanded form.
    public init(entitlement entry: String, teamID: TeamIdentifier) throws(AccessGroupError) {
        var rest = entry
        for variable in Self.prefixVariables where rest.hasPrefix(variable) {
            rest = teamID.rawValue + "." + rest.dropFirst(variable.count)
        }
        if rest.contains("$(") {
            throw .malformedGroup(entry: entry, reason: "only $(AppIdentifierPrefix) and $(TeamIdentifierPrefix) are expanded, and only at the start")
        }
        let group: AccessGroup
        do { group = try AccessGroup(rest) } catch {
            if case .malformedGroup(_, let reason) = error { throw .malformedGroup(entry: entry, reason: reason) }
            throw error
        }
        guard group.teamID == teamID else {
            throw .foreignTeam(entry: entry, team: group.teamID.rawValue, appTeam: teamID.rawValue)
        }
        self = group
    }

    /// Why `identifier` is not a usable group identifier, or nil when it is.
    static func problem(with identifier: String) -> String? {
        if identifier.isEmpty { return "the group identifier after the team ID is empty" }
        if identifier.hasPrefix(".") || identifier.hasSuffix(".") || identifier.contains("..") {
            return "dots must separate non-empty parts"
        }
        let allowed = identifier.unicodeScalars.allSatisfy {
            (("a"..."z").contains($0) || ("A"..."Z").contains($0)
                || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_")
        }
        return allowed ? nil : "use letters, digits, '.', '-' and '_' only"
    }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// An app group (`com.apple.security.application-groups`), written `group.com.contoso.shared`:
/// no team prefix. An app's app groups are access groups too, after its keychain groups and its
/// app ID, so queries without a group span them.
public struct ApplicationGroup: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The group as written and as stored in `kSecAttrAccessGroup`.
    public let rawValue: String
    public var description: String { rawValue }

    public static let prefix = "group."

    public init(_ rawValue: String) throws(AccessGroupError) {
        guard rawValue.hasPrefix(Self.prefix) else {
            throw .malformedGroup(entry: rawValue, reason: "an app group starts with 'group.', like 'group.com.contoso.shared'")
        }
        if let reason = AccessGroup.problem(with: String(rawValue.dropFirst(Self.prefix.count))) {
            throw .malformedGroup(entry: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
