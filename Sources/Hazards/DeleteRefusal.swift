import SharedKeychain
import TokenCache

/// Guarded delete refused an app's delete because it matched items other apps created and the
/// app is not privileged for the group. Nothing was deleted.
///
/// Its status is errSecMissingEntitlement (-34018): like a missing entitlement, the app lacks
/// the right to do this to the group, retrying will not help, and the fix is a change of
/// configuration (make it privileged) rather than of the query, which is well formed (so not
/// errSecParam). The message says it is guarded delete, not the entitlements file, that refused.
public struct DeleteRefusal: Error, Sendable, Hashable, StatusReporting, CustomStringConvertible {
    /// The domain of the storage error that carries a refusal up through the keychain core.
    public static let domain = "SharedKeychain.GuardedDelete"

    /// The bundle ID of the app that asked.
    public let app: String
    /// The guarded group.
    public let group: String
    /// How many matched items were other apps' (what it was refused).
    public let refused: Int
    /// How many items the delete matched in the group, its own included.
    public let matched: Int
    /// Who created the refused items, with counts.
    public let creators: [String: Int]
    /// The apps that may delete them.
    public let privileged: [String]

    /// - Parameters: see the properties.
    public init(app: String, group: String, refused: Int, matched: Int, creators: [String: Int], privileged: [String]) {
        self.app = app
        self.group = group
        self.refused = refused
        self.matched = matched
        self.creators = creators
        self.privileged = privileged
    }

    /// errSecMissingEntitlement; see the type's documentation.
    public var status: KeychainStatus { .missingEntitlement }

    /// Names the app, the group and how many items it was refused.
    public var message: String {
        let owners = creators.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let who = privileged.isEmpty ? "no app is privileged there" : "only \(privileged.joined(separator: ", ")) may"
        return "guarded delete refused \(app) deleting \(refused) of \(matched) item\(matched == 1 ? "" : "s") in group '\(group)': "
            + "they were created by other apps (\(owners)); \(who). Nothing was deleted."
    }

    /// The status and the message.
    public var description: String { "\(status.name) (\(status.rawValue)): \(message)" }

    /// The storage error a store decorator throws for the refusal.
    public var storageError: StorageError {
        .refused(policy: Self.domain, message: message)
    }

    /// Whether `error` (from a store, the keychain core or the token cache) is a guarded-delete
    /// refusal carried as a storage error.
    public static func isRefusal(_ error: any Error) -> Bool {
        let storage: StorageError?
        switch error {
        case let error as StorageError: storage = error
        case KeychainError.storage(let error): storage = error
        case TokenCacheError.keychain(.storage(let error)): storage = error
        default: storage = nil
        }
        guard case .refused(let policy, _)? = storage else { return false }
        return policy == Self.domain
    }
}
