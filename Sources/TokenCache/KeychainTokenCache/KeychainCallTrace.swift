import Foundation
import SharedKeychain

/// One keychain call a token-cache operation made, as Apple's SecItem API would see it: the
/// function, the attributes that matter (account, service, generic, type, accessibility; data
/// never) and the status. A trace of them is how a user sees what MSAL does to their keychain,
/// and how the tests compare an operation with the sequence IdentityCore makes.
public struct KeychainCall: Sendable, Hashable, CustomStringConvertible {
    /// The SecItem function.
    public enum Function: String, Sendable, Hashable {
        case copyMatching = "SecItemCopyMatching"
        case update = "SecItemUpdate"
        case add = "SecItemAdd"
        case delete = "SecItemDelete"
    }

    public var function: Function
    public var account: String?
    public var service: String?
    /// `kSecAttrGeneric` as text (it is UTF-8 in every item the SDKs write).
    public var generic: String?
    public var type: UInt32?
    /// `kSecAttrApplicationTag` as text, on calls for a key (`kSecClassKey`, the broker key).
    public var keyTag: String?
    /// `kSecAttrAccessible`, on adds.
    public var accessibility: Accessibility?
    public var status: KeychainStatus
    /// Items found or deleted, when the call reports a count.
    public var count: Int?
    /// The fault the device's fault plan injected in place of the call's own answer, if it did.
    public var injected: InjectedFault?

    /// `SecItemUpdate account='alice-env' service='refreshtoken-c--' type=2002 -> errSecItemNotFound`.
    public var description: String {
        var parts = [function.rawValue]
        if let keyTag { parts.append("class=key tag='\(DisplayText(keyTag))'") }
        if let account { parts.append("account='\(DisplayText(account))'") }
        if let service { parts.append("service='\(DisplayText(service))'") }
        if let generic { parts.append("generic='\(DisplayText(generic))'") }
        if let type { parts.append("type=\(type)") }
        if let accessibility { parts.append("accessible=\(accessibility.rawValue)") }
        var outcome = status.name
        if let count, status == .success { outcome += " (\(count.counted("item")))" }
        if let injected { outcome += " [injected: fault plan rule \(injected.rule)]" }
        return parts.joined(separator: " ") + " -> " + outcome
    }

    /// The call's shape without its outcome: what the tests compare with IdentityCore's order.
    public var shape: String {
        [function.rawValue, keyTag.map { "tag=\($0)" }, account.map { "account=\($0)" }, service.map { "service=\($0)" }, type.map { "type=\($0)" }]
            .compactMap { $0 }.joined(separator: " ")
    }
}

/// Where a token cache reports each keychain call it makes (``TokenCacheConfiguration/trace``):
/// a closure, compared by identity so the configuration stays `Hashable`.
public struct KeychainCallTrace: Sendable, Hashable {
    private let id = UUID()
    let record: @Sendable (KeychainCall) -> Void

    /// - Parameter record: called for every call, in order, on the calling thread.
    public init(_ record: @escaping @Sendable (KeychainCall) -> Void) {
        self.record = record
    }

    public static func == (lhs: KeychainCallTrace, rhs: KeychainCallTrace) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
