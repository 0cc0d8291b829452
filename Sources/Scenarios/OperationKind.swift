/// What a scenario step asks an app to do, named like the CLI command that does the same
/// (`do: token signin`).
public enum OperationKind: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `SecItemAdd` of one item.
    case itemAdd = "item add"
    /// `SecItemCopyMatching`, first match.
    case itemGet = "item get"
    /// Every item of a group (or of all the app's groups).
    case itemList = "item list"
    /// `SecItemUpdate` of every match.
    case itemUpdate = "item update"
    /// `SecItemDelete` of every match.
    case itemDelete = "item delete"
    /// Read an item as a decimal counter, add one, write it back (update, or add when absent),
    /// with no lock: the read-modify-write that loses updates when apps race.
    case itemIncrement = "item increment"
    /// Read an item as a decimal counter; its value is reported (counters are not secrets).
    case itemCounter = "item counter"
    /// Emulated interactive sign-in.
    case tokenSignIn = "token signin"
    /// A token from the cache, else by refresh token; `silent: false` falls back to sign-in.
    case tokenAcquire = "token acquire"
    /// The accounts the app sees (MSAL `allAccounts`).
    case tokenAccounts = "token accounts"
    /// MSAL `remove(account)`, or with `wipe-account: true` every app's tokens for the user.
    case tokenRemove = "token remove"
    /// `wipeCacheForAllAccounts`: the whole group.
    case tokenWipe = "token wipe"
    /// Who wiped last: the value is the bundle ID, or empty.
    case tokenWipeInfo = "token wipe-info"

    /// The CLI words, `token signin`.
    public var description: String { rawValue }

    /// Whether it needs the app's token cache (a client ID).
    var usesTokenCache: Bool { rawValue.hasPrefix("token ") }

    /// The step keys the operation must have.
    var requiredParameters: [OperationParameter] {
        switch self {
        case .itemAdd: [.account, .service]
        case .itemUpdate: [.data]
        case .itemIncrement, .itemCounter: [.account]
        case .tokenSignIn: [.user]
        case .tokenAcquire, .tokenRemove: [.account]
        case .itemGet, .itemList, .itemDelete, .tokenAccounts, .tokenWipe, .tokenWipeInfo: []
        }
    }

    /// The step keys the operation may have besides the required ones.
    var optionalParameters: [OperationParameter] {
        switch self {
        case .itemAdd: [.group, .data, .generic, .type, .label]
        case .itemGet, .itemDelete: [.account, .service, .group]
        case .itemList: [.group]
        case .itemUpdate: [.account, .service, .group]
        case .itemIncrement, .itemCounter: [.service, .group]
        case .tokenSignIn: [.tenant, .scopes]
        case .tokenAcquire: [.scopes, .silent]
        case .tokenRemove: [.wipeAccount]
        case .tokenAccounts, .tokenWipe, .tokenWipeInfo: []
        }
    }
}

/// A key of an operation step besides `app` and `do`.
public enum OperationParameter: String, Sendable, CaseIterable {
    case account, service, group, data, generic, type, label
    case user, tenant, scopes, silent
    case wipeAccount = "wipe-account"
}
