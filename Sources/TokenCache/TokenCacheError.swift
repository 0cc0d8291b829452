import SharedKeychain

/// Why a token cache operation failed. Messages name accounts, items and fields, never a token.
public enum TokenCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No usable token: the app must sign the user in interactively (MSAL's
    /// `MSALErrorInteractionRequired`). `lastWipe` is the group's wipe record, when there is one.
    case interactionRequired(reason: String, lastWipe: WipeRecord?)
    /// No usable token, and no interactive sign-in was tried: the request allowed one only for
    /// an account the cache knows, and `account` is none of them (a mistyped account is an
    /// error, not a new user). Otherwise as ``interactionRequired(reason:lastWipe:)``.
    case signInNotTried(account: String, reason: String, lastWipe: WipeRecord?)
    /// No account in the cache matches the home account ID or username.
    case accountNotFound(String)
    /// A stored item cannot be used; `item` names where it is.
    case invalidCacheItem(item: String, reason: String)
    /// Serialized cache input was refused before anything was written.
    case invalidImport(section: String, key: String?, reason: String)
    /// An argument or the configuration is unusable.
    case invalidArgument(String)
    /// The keychain refused; its status (errSecMissingEntitlement, ...) is reported as is.
    case keychain(KeychainError)
    /// The broker refused the request or its answer failed the app's checks; the message says
    /// which, naming the bundle IDs involved.
    case broker(String)
    /// The broker's answer cannot be decrypted with the broker key `app` reads from `group`
    /// now (IdentityCore `MSIDErrorBrokerResponseDecryptionFailed`, -51806): the key was
    /// deleted or replaced since the request, or the answer was meant for another group.
    case brokerResponseDecryptionFailed(app: String, group: String)

    /// What went wrong, for people; never contains a token.
    public var message: String {
        switch self {
        case .interactionRequired(let reason, let lastWipe):
            "interaction_required: \(reason)" + (lastWipe.map { "; \($0)" } ?? "")
        case .signInNotTried(let account, let reason, let lastWipe):
            "interaction_required: \(reason); '\(DisplayText(account))' is not an account of this cache, so no sign-in was tried"
                + (lastWipe.map { "; \($0)" } ?? "")
        case .accountNotFound(let identifier):
            "no account '\(DisplayText(identifier))' in the token cache"
        case .invalidCacheItem(let item, let reason):
            "the cache item \(item) is invalid: \(reason)"
        case .invalidImport(let section, let key, let reason):
            "cannot import the cache: \(section)" + (key.map { "['\(DisplayText($0))']" } ?? "") + ": \(reason); nothing was written"
        case .invalidArgument(let message):
            message
        case .broker(let message):
            message
        case .brokerResponseDecryptionFailed(let app, let group):
            "Failed to decrypt broker message: \(DisplayText(app)) read the broker key of group '\(DisplayText(group))' and it does not open "
                + "the broker's response; the key was deleted or replaced since the request (any app of the group can), or the "
                + "response was meant for another group. Sign in again: the next request carries the group's key as it is now"
        case .keychain(let error):
            error.message
        }
    }

    /// The status and the message: `errSecItemNotFound (-25300): interaction_required: ...`.
    public var description: String { "\(status.name) (\(status.rawValue)): \(message)" }
}

extension TokenCacheError: StatusReporting {
    /// Interaction required and unknown accounts are cache misses (errSecItemNotFound); bad
    /// stored items are errSecDecode; bad input errSecParam; keychain errors keep their status.
    public var status: KeychainStatus {
        switch self {
        case .interactionRequired, .signInNotTried, .accountNotFound: .itemNotFound
        case .invalidCacheItem: .decode
        case .invalidImport, .invalidArgument: .param
        case .keychain(let error): error.status
        case .broker, .brokerResponseDecryptionFailed: .authFailed
        }
    }

    /// MSAL's own name for the failure where it has one.
    public var errorCode: String? {
        switch self {
        case .interactionRequired, .signInNotTried: "interaction_required"
        case .brokerResponseDecryptionFailed: "MSIDErrorBrokerResponseDecryptionFailed"
        default: nil
        }
    }
}
