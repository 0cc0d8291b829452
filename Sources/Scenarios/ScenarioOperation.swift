import Foundation

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
    public var type: Int?
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
        case .tokenSignIn: parts += [user].compactMap { $0 }
        case .tokenAcquire, .tokenRemove:
            parts += [account].compactMap { $0 }
            if wipeAccount == true { parts.append("(wipe-account)") }
        default:
            if let account { parts.append("account=\(account)") }
            if let service { parts.append("service=\(service)") }
        }
        if let group { parts.append("group=\(group)") }
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
        type = try container.decodeIfPresent(Int.self, OperationParameter.type.rawValue)
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
