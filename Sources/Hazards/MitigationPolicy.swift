import Foundation
import SharedKeychain

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
            throw .invalid(path: url.path, reason: PolicyError.describe(error))
        }
    }
}
