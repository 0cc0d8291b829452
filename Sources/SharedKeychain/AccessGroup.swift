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
        // A wildcard part is kept literally; what precedes it follows the identifier's rules.
        let stem = Self.wildcardStem(of: identifier) ?? identifier
        if identifier != "*", let reason = Self.problem(with: stem) {
            throw .malformedGroup(entry: "\(teamID.rawValue).\(identifier)", reason: reason)
        }
        if Self.isReserved(identifier) { throw .reservedGroup("\(teamID.rawValue).\(identifier)") }
        self.teamID = teamID
        self.identifier = identifier
    }

    /// Whether the identifier ends in a wildcard part (`ABCDE12345.*`, `ABCDE12345.com.contoso.*`),
    /// as a re-signing service's provisioning profile writes it. iOS keeps such an entry
    /// literally: it is a group of that exact name and matches no other group by pattern.
    public var isWildcard: Bool { Self.wildcardStem(of: identifier) != nil }

    /// What comes before a final `*` part (`""` for `*` alone, `com.contoso` for
    /// `com.contoso.*`); nil when there is no such part.
    private static func wildcardStem(of identifier: String) -> String? {
        if identifier == "*" { return "" }
        guard identifier.hasSuffix(".*") else { return nil }
        return String(identifier.dropLast(2))
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

    /// The suffix of the group holding a group's audit journal (`<group>.sharedkeychain-audit`).
    public static let auditJournalSuffix = ".sharedkeychain-audit"
    /// The suffix of the group holding a group's deletion intents (`<group>.sharedkeychain-intents`).
    public static let intentJournalSuffix = ".sharedkeychain-intents"

    /// Whether `name` (a group or its identifier) is one of the emulator's journal groups. No
    /// app may be entitled to one, so no app can write or erase the record of what apps did;
    /// only the mitigation layer, which uses the store directly, writes there.
    public static func isReserved(_ name: String) -> Bool {
        [auditJournalSuffix, intentJournalSuffix].contains { name.lowercased().hasSuffix($0) }
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
        if AccessGroup.isReserved(rawValue) { throw .reservedGroup(rawValue) }
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

/// Why a team ID, access group or bundle ID was refused. Every message quotes the value.
public enum AccessGroupError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidTeamID(String)
    case malformedGroup(entry: String, reason: String)
    case foreignTeam(entry: String, team: String, appTeam: String)
    case invalidBundleID(String)
    /// More access groups (keychain groups and app groups) than ``AppIdentity/maxAccessGroups``.
    case tooManyGroups(count: Int, limit: Int)
    /// One of the emulator's journal groups (``AccessGroup/isReserved(_:)``), which no app may use.
    case reservedGroup(String)

    public var description: String {
        switch self {
        case .invalidTeamID(let value):
            "'\(DisplayText(value))' is not a team ID: it must be 10 upper-case letters or digits, like 'ABCDE12345'"
        case .malformedGroup(let entry, let reason):
            "access group '\(DisplayText(entry))' is malformed: \(reason)"
        case .foreignTeam(let entry, let team, let appTeam):
            "access group '\(DisplayText(entry))' belongs to team \(DisplayText(team)), but the app's team is \(appTeam); an app can only be entitled to its own team's groups"
        case .invalidBundleID(let value):
            "'\(DisplayText(value))' is not a bundle ID: use letters, digits, '-' and '.', like 'com.contoso.mail'"
        case .reservedGroup(let group):
            "access group '\(DisplayText(group))' is reserved: groups ending in \(AccessGroup.auditJournalSuffix) or \(AccessGroup.intentJournalSuffix) hold the emulator's audit journal and deletion intents, which no app may be entitled to; choose another name"
        case .tooManyGroups(let count, let limit):
            "the app lists \(count) access groups (keychain groups and app groups); at most \(limit) are supported (real apps list a handful; every ungrouped query searches each one)"
        }
    }
}
