/// The mitigations one access group opts into, and the apps allowed to delete what others
/// created there (MSAL's headers say only the broker, Authenticator, or Intune should wipe).
public struct GroupPolicy: Sendable, Hashable, Codable {
    /// What is switched on for the group.
    public var mitigations: Set<Mitigation>
    /// Bundle IDs that guarded delete lets delete every app's items.
    public var privileged: [String]

    /// - Parameters: see the properties.
    public init(mitigations: Set<Mitigation>, privileged: [String] = []) {
        self.mitigations = mitigations
        self.privileged = privileged
    }

    /// Every mitigation on, with `privileged` as the apps that may delete anything.
    public static func all(privileged: [String] = []) -> GroupPolicy {
        GroupPolicy(mitigations: Set(Mitigation.allCases), privileged: privileged)
    }

    /// Whether `mitigation` is on.
    public func enables(_ mitigation: Mitigation) -> Bool { mitigations.contains(mitigation) }

    /// Whether `bundleID` may delete items other apps created.
    public func isPrivileged(_ bundleID: String) -> Bool { privileged.contains(bundleID) }

    private enum CodingKeys: String, CodingKey {
        case mitigations
        case privileged
    }

    /// Reads `{"mitigations": ["audit", "guarded-delete"], "privileged": [...]}`; `privileged`
    /// may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mitigations = try container.decode(Set<Mitigation>.self, forKey: .mitigations)
        privileged = try container.decodeIfPresent([String].self, forKey: .privileged) ?? []
    }

    /// Writes the mitigations sorted, so files are stable.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mitigations.map(\.rawValue).sorted(), forKey: .mitigations)
        try container.encode(privileged, forKey: .privileged)
    }
}
