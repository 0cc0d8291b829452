import KeychainStorage

/// A failed keychain operation: the Keychain Services status it stands for, and a message a
/// person can act on. Messages name groups, accounts and services, never secret data.
public enum KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The app named an access group it is not entitled to (`""` included).
    case missingEntitlement(group: String, app: String, entitled: [String])
    case duplicateItem(PrimaryKey)
    case itemNotFound(query: String)
    case invalidParameter(String)
    /// The storage failed; the case carries the backend's own error.
    case storage(StorageError)

    /// The Keychain Services status this error reports.
    public var status: KeychainStatus {
        switch self {
        case .missingEntitlement: .missingEntitlement
        case .duplicateItem: .duplicateItem
        case .itemNotFound: .itemNotFound
        case .invalidParameter: .param
        case .storage(let error):
            switch error {
            case .duplicateItem: .duplicateItem
            case .versionConflict: .versionConflict
            case .locked, .deviceLocked: .interactionNotAllowed
            case .unavailable: .notAvailable
            case .timedOut, .backend: .io
            case .corruptItem: .decode
            // A policy denies the app rights over the items: the same answer as a group it
            // is not entitled to, and as final.
            case .refused: .missingEntitlement
            }
        }
    }

    public var message: String {
        switch self {
        case .missingEntitlement(let group, let app, let entitled):
            "\(app) is not entitled to access group '\(group)'; its groups are: \(entitled.joined(separator: ", ")). Add the group to the app's keychain-access-groups entitlement."
        case .duplicateItem(let key):
            "an item with \(key) already exists; update it instead"
        case .itemNotFound(let query):
            "no item matches \(query)"
        case .invalidParameter(let message):
            message
        case .storage(let error):
            error.description
        }
    }

    public var description: String { "\(status.name) (\(status.rawValue)): \(message)" }

    init(_ error: StorageError) {
        if case .duplicateItem(let key) = error {
            self = .duplicateItem(key)
        } else {
            self = .storage(error)
        }
    }
}
