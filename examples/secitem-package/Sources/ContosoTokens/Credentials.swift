import Foundation
import Security

/// Website passwords as an iOS app keeps them: internet passwords keyed by server, protocol,
/// port and account.
public struct SitePasswords: Sendable {
    public let server: String

    public init(server: String) {
        self.server = server
    }

    private func query(account: String? = nil, port: Int = 443) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: port,
        ]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    @discardableResult
    public func save(_ password: String, account: String, port: Int = 443) -> OSStatus {
        var add = query(account: account, port: port)
        add[kSecAttrAuthenticationType as String] = kSecAttrAuthenticationTypeHTMLForm
        add[kSecValueData as String] = Data(password.utf8)
        return SecItemAdd(add as CFDictionary, nil)
    }

    public func password(account: String, port: Int = 443) -> String? {
        var query = query(account: account, port: port)
        query[kSecReturnData as String] = true
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The attributes of the password for `account`, as `kSecReturnAttributes` gives them.
    public func attributes(account: String) -> [String: Any]? {
        var query = query(account: account)
        query[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    @discardableResult
    public func deleteAll() -> OSStatus {
        SecItemDelete([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server] as CFDictionary)
    }
}

/// A device key kept under a binary identifier (a `Data` account, as apps that key items by a
/// hash or a UUID's bytes do), protected by user presence.
public struct DeviceKeys: Sendable {
    public let service: String

    public init(service: String) {
        self.service = service
    }

    private func query(id: Data) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: id]
    }

    /// Saves `key` under `id`, asking for user presence on every use when `protected`.
    @discardableResult
    public func save(_ key: Data, id: Data, protected: Bool) -> OSStatus {
        var add = query(id: id)
        add[kSecValueData as String] = key
        if protected {
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error) else {
                return errSecParam
            }
            add[kSecAttrAccessControl as String] = access
        }
        return SecItemAdd(add as CFDictionary, nil)
    }

    /// The key for `id`; `allowUI: false` fails rather than asks (kSecUseAuthenticationUIFail).
    public func key(id: Data, allowUI: Bool = true) -> (OSStatus, Data?) {
        var query = query(id: id)
        query[kSecReturnData as String] = true
        if !allowUI { query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
    }

    /// The ids of every key that can be used without asking the user (kSecUseAuthenticationUISkip).
    public func idsUsableWithoutPrompt() -> [Data] {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecMatchLimit as String: kSecMatchLimitAll,
            kSecReturnAttributes as String: true, kSecReturnData as String: true,
            kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let items = result as? [[String: Any]] else { return [] }
        return items.compactMap { $0[kSecAttrAccount as String] as? Data }
    }

    @discardableResult
    public func deleteAll() -> OSStatus {
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary)
    }
}
