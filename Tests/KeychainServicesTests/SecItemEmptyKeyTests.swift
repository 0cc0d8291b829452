import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

/// Issue 27, finding 5: an empty service or account is a key like any other. KeychainAccess's
/// own test sets an item through `Keychain(service: "")` and reads it back through `Keychain()`,
/// whose service is the bundle ID or, with none, the empty one; beside it sit items that differ
/// only in the service. Every write must read back, through SecItem, on every backend.
@Suite("SecItem: empty service and account")
struct SecItemEmptyKeyTests {
    /// KeychainAccess's queries: class, service, the synchronizable wildcard, and the account.
    struct KeychainAccessQueries {
        let service: String

        private func query(_ key: String) -> [String: Any] {
            [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecAttrAccount as String: key,
            ]
        }

        /// `set`: a probe with no result, then an update of the data or an add.
        func set(_ value: String, key: String) -> OSStatus {
            let search = query(key)
            switch SecItemCopyMatching(search as CFDictionary, nil) {
            case errSecSuccess:
                return SecItemUpdate(search as CFDictionary, [kSecValueData as String: Data(value.utf8)] as CFDictionary)
            case errSecItemNotFound:
                var add = search
                add[kSecAttrSynchronizable as String] = kCFBooleanFalse
                add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
                add[kSecValueData as String] = Data(value.utf8)
                return SecItemAdd(add as CFDictionary, nil)
            case let status:
                return status
            }
        }

        /// `get`: the first match's data, as a status and a string.
        func get(_ key: String) -> (OSStatus, String?) {
            var search = query(key)
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            search[kSecReturnData as String] = kCFBooleanTrue
            var result: CFTypeRef?
            let status = SecItemCopyMatching(search as CFDictionary, &result)
            return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
        }

        func remove(_ key: String) -> OSStatus {
            SecItemDelete(query(key) as CFDictionary)
        }
    }

    @Test("KeychainAccess's testSetStringWithCustomService: the empty service reads back beside named ones", arguments: TestBackend.memoryAndKeyring)
    func keychainAccessCustomService(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let empty = KeychainAccessQueries(service: "")
        let named = KeychainAccessQueries(service: "com.kishikawakatsumi.KeychainAccess")
        let other = KeychainAccessQueries(service: "example.com")
        apps.run(apps.mail) {
            #expect(empty.get("username").0 == errSecItemNotFound)
            #expect(empty.set("kishikawakatsumi", key: "username") == errSecSuccess)
            #expect(empty.get("username") == (errSecSuccess, "kishikawakatsumi"))
            // The same key again: found, so updated.
            #expect(empty.set("kishikawakatsumi", key: "username") == errSecSuccess)
            #expect(empty.get("username") == (errSecSuccess, "kishikawakatsumi"))
            #expect(named.set("kishikawa_katsumi", key: "username") == errSecSuccess)
            #expect(other.set("k_katsumi", key: "username") == errSecSuccess)
            #expect(empty.get("username") == (errSecSuccess, "kishikawakatsumi"))
            #expect(named.get("username") == (errSecSuccess, "kishikawa_katsumi"))
            #expect(other.get("username") == (errSecSuccess, "k_katsumi"))
            #expect(empty.remove("username") == errSecSuccess)
            #expect(empty.get("username").0 == errSecItemNotFound)
            #expect(named.get("username") == (errSecSuccess, "kishikawa_katsumi"))
            #expect(other.get("username") == (errSecSuccess, "k_katsumi"))
        }
    }
}
