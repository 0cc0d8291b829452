import Foundation
import Security

/// A token store as an iOS app of the Contoso suite writes it: generic passwords in the suite's
/// shared keychain group, written update-then-add, read with a match limit.
public struct TokenStore: Sendable {
    public let service: String
    /// The shared group; nil uses the app's first keychain group, as Keychain Services does.
    public let accessGroup: String?

    public init(service: String, accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    private func query(account: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let account { query[kSecAttrAccount as String] = account }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// Saves `token` for `account`: an update, or an add when there is nothing to update.
    @discardableResult
    public func save(_ token: String, account: String) -> OSStatus {
        let data = Data(token.utf8)
        let status = SecItemUpdate(query(account: account) as CFDictionary, [kSecValueData as String: data] as CFDictionary)
        guard status == errSecItemNotFound else { return status }
        var add = query(account: account)
        add[kSecValueData as String] = data
        add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        add[kSecAttrLabel as String] = "Contoso token"
        return SecItemAdd(add as CFDictionary, nil)
    }

    public func token(account: String) -> String? {
        var query = query(account: account)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Every account with a token, oldest first.
    public func accounts() -> [String] {
        var query = query()
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    /// The group the token for `account` landed in.
    public func group(account: String) -> String? {
        var query = query(account: account)
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
    }

    @discardableResult
    public func delete(account: String) -> OSStatus {
        SecItemDelete(query(account: account) as CFDictionary)
    }

    /// Signs every account out: deletes every token of the service.
    @discardableResult
    public func deleteAll() -> OSStatus {
        SecItemDelete(query() as CFDictionary)
    }

    /// A message for a status, as an iOS app would log it.
    public static func describe(_ status: OSStatus) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
    }
}
