/// One app as the keychain sees it: bundle ID, team, and the access groups it may use, in the
/// order Keychain Services consults them: its `keychain-access-groups` entries, then its app ID
/// (`<TEAMID>.<bundle id>`), then its app groups (`group.com.contoso.shared`).
public struct AppIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    public let bundleID: String
    public let teamID: TeamIdentifier
    /// The groups from the entitlement, in order, without the app ID.
    public let keychainAccessGroups: [AccessGroup]
    /// The app's app groups, in order: access groups after the keychain groups and the app ID.
    public let applicationGroups: [ApplicationGroup]
    /// Whether the app was signed with any keychain entitlement. An app without one (no
    /// `application-identifier`, no `keychain-access-groups`, no app groups: an unsigned or
    /// ad-hoc signed build) has no group at all, and every keychain call is -34018.
    public let hasKeychainEntitlement: Bool

    /// CryptoTokenKit's group, which iOS lists after every app's own groups. Its items come from
    /// token extensions (smart cards), never from `SecItemAdd`: an app may read it, and the
    /// emulator, which has no token extensions, finds nothing there; naming it in a write is
    /// -34018.
    public static let tokenGroup = "com.apple.token"

    /// The most keychain access groups an app may list. Every query without a group searches
    /// each of them, so thousands would make every call slow; real apps list a handful.
    public static let maxAccessGroups = 256

    public init(
        bundleID: String, teamID: TeamIdentifier, keychainAccessGroups: [AccessGroup] = [], applicationGroups: [ApplicationGroup] = [],
        hasKeychainEntitlement: Bool = true
    ) throws(AccessGroupError) {
        guard keychainAccessGroups.count + applicationGroups.count <= Self.maxAccessGroups else {
            throw .tooManyGroups(count: keychainAccessGroups.count + applicationGroups.count, limit: Self.maxAccessGroups)
        }
        guard AccessGroup.problem(with: bundleID) == nil, !bundleID.contains("_") else {
            throw .invalidBundleID(bundleID)
        }
        // The app ID is one of the app's groups: it must not be a journal group either.
        if AccessGroup.isReserved(bundleID) { throw .reservedGroup("\(teamID.rawValue).\(bundleID)") }
        if let foreign = keychainAccessGroups.first(where: { $0.teamID != teamID }) {
            throw .foreignTeam(entry: foreign.rawValue, team: foreign.teamID.rawValue, appTeam: teamID.rawValue)
        }
        self.bundleID = bundleID
        self.teamID = teamID
        self.keychainAccessGroups = keychainAccessGroups
        self.applicationGroups = applicationGroups
        self.hasKeychainEntitlement = hasKeychainEntitlement
    }

    /// An identity whose groups come from an entitlements file; `source` names it in errors.
    ///
    /// Wildcard entries (`ABCDE12345.*`) are kept literally; a `com.apple.token` entry is
    /// dropped, since the device lists that group after every app's own groups anyway
    /// (``deviceAccessGroupList``); entitlements without any keychain key make an app without a
    /// keychain entitlement (``hasKeychainEntitlement``).
    ///
    /// - Throws: ``EntitlementsError/invalidGroup(file:_:)`` for a malformed entry or another
    ///   team's group; ``EntitlementsError/applicationIdentifierMismatch(file:found:expected:)``
    ///   when the file's `application-identifier` is another app's.
    public init(bundleID: String, teamID: TeamIdentifier, entitlements: Entitlements, source: String) throws(EntitlementsError) {
        let expected = "\(teamID.rawValue).\(bundleID)"
        if let signed = entitlements.applicationIdentifier, signed != expected {
            throw .applicationIdentifierMismatch(file: source, found: signed, expected: expected)
        }
        do {
            let groups = try entitlements.keychainAccessGroups.filter { $0 != Self.tokenGroup }.map { (entry) throws(AccessGroupError) in
                try AccessGroup(entitlement: entry, teamID: teamID)
            }
            let applicationGroups = try entitlements.applicationGroups.map { (entry) throws(AccessGroupError) in
                try ApplicationGroup(entry)
            }
            try self.init(
                bundleID: bundleID, teamID: teamID, keychainAccessGroups: groups, applicationGroups: applicationGroups,
                hasKeychainEntitlement: entitlements.grantsKeychainAccess)
        } catch {
            throw .invalidGroup(file: source, error)
        }
    }

    /// The app ID, `<TEAMID>.<bundle id>`, which is also the app's last access group.
    public var appIDGroup: AccessGroup {
        // The initializer validated the bundle ID with the group identifier's rules.
        AccessGroup(uncheckedTeamID: teamID, identifier: bundleID)
    }

    /// Every group the app may use, in Keychain Services' order; the first is where an add
    /// without a group goes.
    public var accessGroups: [AccessGroup] {
        guard hasKeychainEntitlement else { return [] }
        let appID = appIDGroup
        return keychainAccessGroups.contains(appID) ? keychainAccessGroups : keychainAccessGroups + [appID]
    }

    /// Every group the app may reach, as stored in `kSecAttrAccessGroup`, in Keychain
    /// Services' order: keychain groups, app ID, app groups. Queries without a group search
    /// all of them.
    public var accessGroupNames: [String] {
        accessGroups.map(\.rawValue) + applicationGroups.map(\.rawValue)
    }

    /// The groups as the device lists them in a -34018 message: ``accessGroupNames`` (wildcard
    /// entries literally), then ``tokenGroup``.
    public var deviceAccessGroupList: [String] {
        accessGroupNames + [Self.tokenGroup]
    }

    /// Whether the app is entitled to the group spelled `rawValue`: the literal name, so a
    /// wildcard entry (`ABCDE12345.*`) grants only a group of that exact name.
    public func isEntitled(to rawValue: String) -> Bool {
        accessGroupNames.contains(rawValue)
    }

    private enum CodingKeys: String, CodingKey { case bundleID, teamID, keychainAccessGroups, applicationGroups, hasKeychainEntitlement }

    /// Decodes an identity; one written before app groups existed has none, and one written
    /// before ``hasKeychainEntitlement`` existed has a keychain entitlement.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            bundleID: try container.decode(String.self, forKey: .bundleID),
            teamID: try container.decode(TeamIdentifier.self, forKey: .teamID),
            keychainAccessGroups: try container.decode([AccessGroup].self, forKey: .keychainAccessGroups),
            applicationGroups: try container.decodeIfPresent([ApplicationGroup].self, forKey: .applicationGroups) ?? [],
            hasKeychainEntitlement: try container.decodeIfPresent(Bool.self, forKey: .hasKeychainEntitlement) ?? true)
    }

    public var description: String { "\(bundleID) (team \(teamID))" }
}
