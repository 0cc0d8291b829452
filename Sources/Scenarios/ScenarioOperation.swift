import Foundation
import SharedKeychain

/// One operation an app performs, with its parameters (those its ``OperationKind`` does not
/// take are nil). Sent as JSON to app processes.
public struct ScenarioOperation: Sendable, Hashable, Codable, CustomStringConvertible {
    public var kind: OperationKind
    public var account: String?
    public var service: String?
    /// A full access group, or `$(AppIdentifierPrefix)...`; nil: the app's groups.
    public var group: String?
    /// Item data as UTF-8 text. Never printed.
    public var data: String?
    public var generic: String?
    /// `kSecAttrType`, a FourCharCode.
    public var type: UInt32?
    public var label: String?
    public var user: String?
    public var tenant: String?
    public var scopes: [String]?
    public var silent: Bool?
    public var wipeAccount: Bool?

    /// An operation with no parameters yet.
    public init(kind: OperationKind) {
        self.kind = kind
    }

    /// `token signin alice@contoso.com`, `item get account=a service=s`: what the timeline
    /// shows. Never the data.
    public var description: String {
        var parts = [kind.rawValue]
        switch kind {
        case .tokenSignIn: parts += [user].compactMap { $0 }.map { DisplayText($0).description }
        case .tokenAcquire, .tokenRemove:
            parts += [account].compactMap { $0 }.map { DisplayText($0).description }
            if wipeAccount == true { parts.append("(wipe-account)") }
        default:
            if let account { parts.append("account=\(DisplayText(account))") }
            if let service { parts.append("service=\(DisplayText(service))") }
        }
        if let group { parts.append("group=\(DisplayText(group))") }
        return parts.joined(separator: " ")
    }
}

extension ScenarioOperation {
    /// Reads `do` and the parameters its kind takes from a step; `ownKeys` are the step's
    /// other keys. Any other key, or a missing required parameter, is an error naming it.
    init(from container: KeyedDecodingContainer<StepKey>, alongside ownKeys: [String], in what: String) throws {
        let name = try container.decode(String.self, "do")
        guard let kind = OperationKind(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
            throw container.failure(
                "do", "unknown operation '\(name)'; use one of \(OperationKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.init(kind: kind)
        let parameters = kind.requiredParameters + kind.optionalParameters
        try container.rejectUnknownKeys(allowed: ownKeys + parameters.map(\.rawValue), in: "\(what) doing '\(kind)'")
        for required in kind.requiredParameters where !container.has(required.rawValue) {
            throw container.failure("do", "'\(kind)' needs '\(required.rawValue)'")
        }
        account = try container.decodeIfPresent(String.self, OperationParameter.account.rawValue)
        service = try container.decodeIfPresent(String.self, OperationParameter.service.rawValue)
        group = try container.decodeIfPresent(String.self, OperationParameter.group.rawValue)
        data = try container.decodeIfPresent(String.self, OperationParameter.data.rawValue)
        generic = try container.decodeIfPresent(String.self, OperationParameter.generic.rawValue)
        if let number = try container.decodeIfPresent(Int.self, OperationParameter.type.rawValue) {
            guard let code = UInt32(exactly: number) else {
                throw container.failure(OperationParameter.type.rawValue, "type must be a whole number from 0 to 4294967295; got \(number)")
            }
            type = code
        }
        label = try container.decodeIfPresent(String.self, OperationParameter.label.rawValue)
        user = try container.decodeIfPresent(String.self, OperationParameter.user.rawValue)
        tenant = try container.decodeIfPresent(String.self, OperationParameter.tenant.rawValue)
        silent = try container.decodeIfPresent(Bool.self, OperationParameter.silent.rawValue)
        wipeAccount = try container.decodeIfPresent(Bool.self, OperationParameter.wipeAccount.rawValue)
        // `scopes: user.read mail.read` or a list.
        if let list = try? container.decodeIfPresent([String].self, OperationParameter.scopes.rawValue) {
            scopes = list
        } else if let text = try container.decodeIfPresent(String.self, OperationParameter.scopes.rawValue) {
            scopes = text.split(separator: " ").map(String.init)
        }
    }
}

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
    /// A token from the cache, else by refresh token; `silent: false` falls back to sign-in of an
    /// account the cache knows, as `token acquire` does.
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

/// How one operation of an app ended, as the timeline shows it: never item data or tokens.
public struct OperationOutcome: Sendable, Hashable, Codable, CustomStringConvertible {
    /// When the operation started (wall clock, comparable across app processes).
    public var started: Date
    /// How long it took, in seconds.
    public var seconds: Double
    public var status: KeychainStatus
    /// MSAL's name for the failure, where it has one (`interaction_required`).
    public var code: String?
    /// The failure's message; nil on success.
    public var message: String?
    /// Items or accounts returned, changed or deleted.
    public var count: Int?
    /// A non-secret result: usernames, a token source, a counter, a bundle ID.
    public var value: String?

    /// - Parameters: see the properties.
    public init(
        started: Date, seconds: Double, status: KeychainStatus, code: String? = nil, message: String? = nil,
        count: Int? = nil, value: String? = nil
    ) {
        self.started = started
        self.seconds = seconds
        self.status = status
        self.code = code
        self.message = message
        self.count = count
        self.value = value
    }

    /// Whether the operation succeeded.
    public var succeeded: Bool { status == .success }

    /// `ok, count 1, value 'x'`, or `interaction_required: no account ...`.
    public var description: String {
        guard succeeded else {
            let name = code ?? status.name
            guard let message else { return status.description }
            // MSAL's messages start with their code already.
            let shown = DisplayText(message, limit: .max).description
            return message.hasPrefix(name) ? shown : "\(name): \(shown)"
        }
        return observed
    }

    /// The parts an ``ExpectedOutcome`` compares, in its words: `ok, count 1, value 'x'`.
    public var observed: String {
        guard succeeded else { return code ?? status.name }
        var parts = ["ok"]
        if let count { parts.append("count \(count)") }
        if let value { parts.append("value '\(DisplayText(value))'") }
        return parts.joined(separator: ", ")
    }
}
