import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

/// Query shapes iOS accepts that real code sends, answered as iOS answers them on every backend.
/// Where Apple's documentation is silent, each test names the library code whose own tests,
/// run on iOS devices, encode iOS's answer.
@Suite("SecItem: query shapes iOS accepts")
struct IOSAcceptedQueryShapeTests {
    static var base: [String: Any] { [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"] }

    /// Valet's `Keychain.migrateObjects(matching:into:compactMap:)` lists the items with
    /// `kSecReturnPersistentRef` and `kSecReturnAttributes`, then reads each one's data back with
    /// `[kSecValuePersistentRef: ref, kSecReturnData: true]` and no `kSecClass`: the reference
    /// names the item, class and all (Apple: kSecValuePersistentRef "uniquely identifies" an item).
    @Test(arguments: TestBackend.memoryAndKeyring)
    func migrateObjectsReadsEachItemByPersistentRefWithoutClass(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            for (account, value) in [("a", "1"), ("b", "2")] {
                let item = Self.base.merging([kSecAttrAccount as String: account, kSecValueData as String: Data(value.utf8)]) { $1 }
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            let list = Self.base.merging([
                kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true, kSecReturnPersistentRef as String: true,
            ]) { $1 }
            var listed: CFTypeRef?
            #expect(SecItemCopyMatching(list as CFDictionary, &listed) == errSecSuccess)
            let rows = try #require(listed as? [[String: Any]])
            #expect(rows.count == 2)
            var read: [String: String] = [:]
            for row in rows {
                let reference = try #require(row[kSecValuePersistentRef as String] as? Data)
                var result: CFTypeRef?
                let query: [String: Any] = [kSecValuePersistentRef as String: reference, kSecReturnData as String: true]
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                let data = try #require(result as? Data)
                read[try #require(row[kSecAttrAccount as String] as? String)] = String(decoding: data, as: UTF8.self)
            }
            #expect(read == ["a": "1", "b": "2"])
            // A delete by the reference alone removes that item only.
            let first = try #require(rows.first?[kSecValuePersistentRef as String] as? Data)
            #expect(SecItemDelete([kSecValuePersistentRef as String: first] as CFDictionary) == errSecSuccess)
            #expect(try apps.everything().count == 1)
            #expect(SecItemDelete([kSecValuePersistentRef as String: first] as CFDictionary) == errSecItemNotFound)
        }
        // Without a class a dictionary still needs the reference: anything else is errSecParam.
        apps.run(apps.mail) {
            #expect(SecItemCopyMatching([kSecAttrAccount as String: "a", kSecReturnData as String: true] as CFDictionary, nil) == errSecParam)
            #expect(SecItemCopyMatching([kSecValuePersistentRef as String: Data("x".utf8)] as CFDictionary, nil) == errSecParam)
        }
    }

    /// Valet's Secure Enclave Valets put `kSecAttrAccessControl` in the base query they add,
    /// read and delete with (`Service.baseQuery`, `.secureEnclave`); their integration tests pass
    /// on devices, so iOS accepts it in a search and a delete and finds by the other attributes.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func accessControlInTheBaseQueryOfSearchesAndDeletes(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [], nil))
            let baseQuery = Self.base.merging([kSecAttrAccount as String: "enclave", kSecAttrAccessControl as String: control]) { $1 }
            #expect(SecItemAdd(baseQuery.merging([kSecValueData as String: Data("s".utf8)]) { $1 } as CFDictionary, nil) == errSecSuccess)
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(baseQuery.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("s".utf8))
            #expect(SecItemDelete(baseQuery as CFDictionary) == errSecSuccess)
            #expect(try apps.everything().isEmpty)
            // Still checked: something that is no SecAccessControl is errSecParam.
            #expect(SecItemDelete(Self.base.merging([kSecAttrAccessControl as String: "ak"]) { $1 } as CFDictionary) == errSecParam)
        }
    }

    /// SecItemDelete returns nothing (Apple: "SecItemDelete(_:) ... query: A dictionary that
    /// describes the search for the keychain items you want to delete"); code that reuses its
    /// read query, return keys and all, as the delete query gets its items deleted, not -50.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func returnKeysInADeleteQueryAreIgnored(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let readQuery = Self.base.merging([
            kSecAttrAccount as String: "a", kSecReturnData as String: true, kSecReturnAttributes as String: true,
            kSecReturnPersistentRef as String: true, kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
        ]) { $1 }
        apps.run(apps.mail) {
            let item = Self.base.merging([kSecAttrAccount as String: "a", kSecValueData as String: Data("x".utf8)]) { $1 }
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemDelete(readQuery as CFDictionary) == errSecSuccess)
        }
        #expect(try apps.everything().isEmpty)
        apps.run(apps.mail) {
            #expect(SecItemDelete(readQuery as CFDictionary) == errSecItemNotFound)
            // Still read as booleans: a return key that is not one is errSecParam.
            #expect(SecItemDelete(Self.base.merging([kSecReturnData as String: "yes"]) { $1 } as CFDictionary) == errSecParam)
        }
    }
}
