import Foundation
import SharedKeychain

/// A protection that can be switched on for one access group. None is on by default, so the
/// keychain core stays faithful to Apple's behaviour unless a group opts in.
public enum Mitigation: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Every delete in the group is journaled: app, operation, query, item count, time.
    case audit
    /// An app may delete only items it created, unless it is privileged for the group.
    case guardedDelete = "guarded-delete"

    /// The raw value (`guarded-delete`).
    public var description: String { rawValue }
}

/// Which access groups opt into which mitigations. A group it does not name behaves exactly as
/// Keychain Services does.
///
/// As JSON (`--policy FILE`, or `policy.json` in the CLI's state directory):
/// ```json
/// {"groups": {"ABCDE12345.com.microsoft.adalcache":
///     {"mitigations": ["audit", "guarded-delete"], "privileged": ["com.microsoft.azureauthenticator"]}}}
/// ```
public struct MitigationPolicy: Sendable, Hashable, Codable {
    /// Per full access group name.
    public var groups: [String: GroupPolicy]

    /// - Parameter groups: per full access group name.
    public init(groups: [String: GroupPolicy] = [:]) {
        self.groups = groups
    }

    /// No mitigation anywhere: Apple's behaviour.
    public static let none = MitigationPolicy()

    /// The policy of `group`, nil when it opts into nothing.
    public func policy(for group: String) -> GroupPolicy? {
        guard let policy = groups[group], !policy.mitigations.isEmpty else { return nil }
        return policy
    }

    /// Reads a policy file.
    /// - Throws: ``PolicyError`` when the file is missing or is not a policy.
    public static func load(from url: URL) throws(PolicyError) -> MitigationPolicy {
        let data: Data
        do { data = try InputValidation.readDocument(at: url, field: "policy") } catch { throw .unreadable(path: url.path, reason: error.message) }
        do {
            return try JSONDecoder().decode(MitigationPolicy.self, from: data)
        } catch {
            throw .invalid(path: url.path, reason: InputValidation.describe(decodingError: error))
        }
    }
}

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

/// A policy file that cannot be used.
public enum PolicyError: Error, Sendable, Equatable, StatusReporting, CustomStringConvertible {
    /// The file cannot be read.
    case unreadable(path: String, reason: String)
    /// The file is not a mitigation policy.
    case invalid(path: String, reason: String)

    /// Bad input: errSecParam.
    public var status: KeychainStatus { .param }

    /// What is wrong and where.
    public var message: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the policy file \(path): \(reason)"
        case .invalid(let path, let reason):
            "\(path) is not a mitigation policy: \(reason); expected {\"groups\": {\"<group>\": {\"mitigations\": [\"audit\", \"guarded-delete\"], \"privileged\": [\"<bundle id>\"]}}}"
        }
    }

    /// The message.
    public var description: String { message }
}

/// Where a mitigation lives: in the apps a team ships (deployable on iOS today), or in the
/// keychain itself, which iOS does not offer (the emulator shows what it would change).
public enum MitigationScope: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Something the suite's own apps can do on iOS as it ships.
    case deployable
    /// A keychain feature iOS lacks; only the emulator has it.
    case whatIf = "what-if"

    /// The label printed beside the mitigation.
    public var label: String {
        switch self {
        case .deployable: "in your apps, deployable on iOS"
        case .whatIf: "emulator only: what if the keychain had it"
        }
    }

    /// The raw value (`what-if`).
    public var description: String { rawValue }
}

extension Mitigation {
    /// Guarded delete and the audit journal are features of the emulator's keychain, not of iOS.
    public var scope: MitigationScope { .whatIf }
}
