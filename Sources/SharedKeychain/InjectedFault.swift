import Foundation
import KeychainStorage

/// The four SecItem functions, as Apple names them: what a fault plan's rule fails.
public enum SecItemFunction: String, Sendable, Hashable, Codable, CaseIterable {
    case add = "SecItemAdd"
    case copyMatching = "SecItemCopyMatching"
    case update = "SecItemUpdate"
    case delete = "SecItemDelete"
}

/// One call a device's fault plan failed on purpose: which rule, which call, which status. It is
/// the emulator's record; a device would show only the status.
public struct InjectedFault: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The plan's rule that fired (its number in `device fault list`).
    public let rule: Int
    public let function: SecItemFunction
    /// The status the call returned instead of its own answer.
    public let status: KeychainStatus
    /// The group the rule is limited to, when it is.
    public let group: String?

    public init(rule: Int, function: SecItemFunction, status: KeychainStatus, group: String?) {
        self.rule = rule
        self.function = function
        self.status = status
        self.group = group
    }

    /// `injected by fault plan rule 1 (SecItemCopyMatching in TEAM.shared -> errSecInteractionNotAllowed)`.
    public var description: String {
        let scope = group.map { " in \(DisplayText($0))" } ?? ""
        return "injected by fault plan rule \(rule) (\(function.rawValue)\(scope) -> \(status.name))"
    }
}

/// Decides, before a keychain call runs, whether the device's fault plan fails it. Asked once
/// per SecItem call by ``Keychain``, after the call's groups are resolved and checked.
public protocol KeychainFaultSource: Sendable {
    /// The fault to inject for `function` by `app` on `groups` (the groups the call acts on),
    /// consuming it from the plan; nil: the call runs as it would.
    func fault(for function: SecItemFunction, groups: [String], app: String) -> InjectedFault?
}

extension KeychainStatus {
    /// The statuses a keychain call can give on a device, and so the ones a fault may inject:
    /// every Keychain Services status this emulator reports, but success and its own
    /// version conflict.
    public static let injectable: [KeychainStatus] = allCases.filter { $0 != .success && $0 != .versionConflict }

    /// A status by Apple's constant name (`errSecInteractionNotAllowed`) or number (`-25308`).
    public init?(nameOrNumber text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let number = Int32(trimmed), let status = KeychainStatus(rawValue: number) {
            self = status
        } else if let status = KeychainStatus.allCases.first(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            self = status
        } else {
            return nil
        }
    }
}
