import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

@Suite("SecItem: Apple's statuses, types and result shapes")
struct SecItemSemanticsTests {
    let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: "acct"]

    func with(_ extra: [String: Any]) -> [String: Any] { base.merging(extra) { $1 } }

    /// Bad input is refused with Apple's status and writes nothing.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func badDictionariesAreRefusedAndWriteNothing(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let data = Data("secret".utf8)
        let refused: [(String, [String: Any], OSStatus)] = [
            ("no class", [kSecAttrAccount as String: "a", kSecValueData as String: data], errSecParam),
            ("unknown class", with([kSecClass as String: "nope", kSecValueData as String: data]), errSecParam),
            ("an internet password with a service", with([kSecClass as String: kSecClassInternetPassword, kSecValueData as String: data]), errSecParam),
            ("a generic password with a server", with([kSecAttrServer as String: "example.com", kSecValueData as String: data]), errSecParam),
            ("a port out of range", [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com", kSecAttrPort as String: 70000], errSecParam),
            ("an unknown authentication UI", with([kSecUseAuthenticationUI as String: "ask", kSecValueData as String: data]), errSecParam),
            ("a key with an account and service", with([kSecClass as String: kSecClassKey]), errSecParam),
            ("a certificate", [kSecClass as String: kSecClassCertificate, kSecValueData as String: data], errSecUnimplemented),
            ("an access control that is not one", with([kSecAttrAccessControl as String: "ak", kSecValueData as String: data]), errSecParam),
            ("account as a number", with([kSecAttrAccount as String: 42, kSecValueData as String: data]), errSecParam),
            ("data as a string", with([kSecValueData as String: "secret"]), errSecParam),
            ("type as a string", with([kSecAttrType as String: "2001", kSecValueData as String: data]), errSecParam),
            ("type out of range", with([kSecAttrType as String: -1, kSecValueData as String: data]), errSecParam),
            ("unknown class of accessibility", with([kSecAttrAccessible as String: "sometimes", kSecValueData as String: data]), errSecParam),
            ("generic as a string", with([kSecAttrGeneric as String: "g", kSecValueData as String: data]), errSecParam),
            ("synchronizable any on add", with([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecValueData as String: data]), errSecParam),
            ("a match limit on add", with([kSecMatchLimit as String: kSecMatchLimitAll, kSecValueData as String: data]), errSecParam),
            ("an unknown key", with(["bogus": 1, kSecValueData as String: data]), errSecParam),
            ("a group it may not use", with([kSecAttrAccessGroup as String: "\(apps.team).com.other", kSecValueData as String: data]), errSecMissingEntitlement),
            ("an empty group", with([kSecAttrAccessGroup as String: "", kSecValueData as String: data]), errSecMissingEntitlement),
        ]
        for (name, attributes, status) in refused {
            let got = apps.run(apps.mail) { SecItemAdd(attributes as CFDictionary, nil) }
            #expect(got == status, "\(name)")
        }
        #expect(try apps.everything().isEmpty)
        let badQueries: [(String, [String: Any], OSStatus)] = [
            ("match limit zero", with([kSecMatchLimit as String: 0]), errSecParam),
            ("match limit text", with([kSecMatchLimit as String: "many"]), errSecParam),
            ("return data as text", with([kSecReturnData as String: "yes"]), errSecParam),
            ("an item reference to find by", with([kSecValueRef as String: Data("x".utf8)]), errSecUnimplemented),
            ("a forged persistent reference", [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: Data("x".utf8)], errSecParam),
        ]
        for (name, query, status) in badQueries {
            var result: CFTypeRef?
            #expect(apps.run(apps.mail) { SecItemCopyMatching(query as CFDictionary, &result) } == status, "\(name)")
            #expect(result == nil, "\(name)")
        }
        apps.run(apps.mail) {
            #expect(SecItemUpdate(base as CFDictionary, [:] as CFDictionary) == errSecParam)
            #expect(SecItemUpdate(base as CFDictionary, [kSecReturnData as String: true] as CFDictionary) == errSecParam)
            // Issue 30: a group in the attributes to update moves the items (was errSecUnimplemented);
            // here nothing matches.
            #expect(SecItemUpdate(base as CFDictionary, [kSecAttrAccessGroup as String: apps.shared] as CFDictionary) == errSecItemNotFound)
            #expect(SecItemDelete([kSecAttrAccount as String: "a"] as CFDictionary) == errSecParam)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func resultsHaveApplesShapes(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            for (account, value) in [("a", "1"), ("b", "2"), ("c", "3")] {
                let item = with([kSecAttrAccount as String: account, kSecValueData as String: Data(value.utf8), kSecAttrType as String: UInt32(7)])
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]
            var result: CFTypeRef?
            // Nothing asked for: success, and no result.
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result == nil)
            // Data alone, first match: Data.
            #expect(SecItemCopyMatching(query.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("1".utf8))
            // kSecMatchLimitAll: an array, oldest first; a number: at most that many.
            #expect(SecItemCopyMatching(query.merging([kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 } as CFDictionary, &result) == errSecSuccess)
            #expect(result as? [Data] == ["1", "2", "3"].map { Data($0.utf8) })
            #expect(SecItemCopyMatching(query.merging([kSecReturnAttributes as String: true, kSecMatchLimit as String: 2]) { $1 } as CFDictionary, &result) == errSecSuccess)
            let two = result as? [[String: Any]]
            #expect(two?.compactMap { $0[kSecAttrAccount as String] as? String } == ["a", "b"])
            #expect(two?.first?[kSecValueData as String] == nil)
            #expect((two?.first?[kSecAttrType as String] as? NSNumber)?.intValue == 7)
            #expect(two?.first?[kSecAttrCreationDate as String] is Date)
            #expect(two?.first?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlocked as String)
            // Not found leaves the result alone.
            result = nil
            #expect(SecItemCopyMatching(with([kSecAttrAccount as String: "zzz", kSecReturnData as String: true]) as CFDictionary, &result) == errSecItemNotFound)
            #expect(result == nil)
            // An update touches every match; a delete removes every match.
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrLabel as String: "relabelled"] as CFDictionary) == errSecSuccess)
            #expect(SecItemCopyMatching(query.merging([kSecAttrLabel as String: "relabelled", kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true]) { $1 } as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [[String: Any]])?.count == 3)
            #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
            #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
        }
    }

    @Test func errorMessagesAreApples() {
        #expect(SecCopyErrorMessageString(errSecItemNotFound, nil) == "The specified item could not be found in the keychain.")
        #expect(SecCopyErrorMessageString(errSecMissingEntitlement, nil) == "A required entitlement isn't present.")
        #expect(SecCopyErrorMessageString(errSecParam, nil) == "One or more parameters passed to a function were not valid.")
        #expect(SecCopyErrorMessageString(-1234, nil) == "OSStatus -1234")
        #expect(errSecMissingEntitlement == -34018 && errSecDuplicateItem == -25299 && errSecItemNotFound == -25300)
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func synchronizableItemsAreMatchedAsAppleMatchesThem(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            #expect(SecItemAdd(with([kSecAttrSynchronizable as String: true, kSecValueData as String: Data()]) as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemCopyMatching(base as CFDictionary, nil) == errSecItemNotFound)
            #expect(SecItemCopyMatching(with([kSecAttrSynchronizable as String: kCFBooleanTrue!]) as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemCopyMatching(with([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) as CFDictionary, nil) == errSecSuccess)
            // A delete without the key leaves synchronizable items alone.
            #expect(SecItemDelete(base as CFDictionary) == errSecItemNotFound)
            #expect(SecItemDelete(with([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) as CFDictionary) == errSecSuccess)
        }
    }
}
