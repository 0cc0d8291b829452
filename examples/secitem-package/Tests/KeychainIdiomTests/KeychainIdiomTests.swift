import Foundation
import Security
import Testing

// SecItem code in the idioms Apple's documentation and the common wrappers write it in. The
// same file builds in Swift 6 mode (KeychainIdiomTests) and Swift 5 mode (KeychainIdiomTests5,
// a link to this file).

@Suite(.serialized)
struct KeychainIdiomTests {
    let service = "com.contoso.idioms.\(UUID().uuidString.prefix(8))"

    /// Apple's "Adding a password to the keychain": a `[String: Any]` of constants and values.
    @Test func anAnyDictionaryAddsAndDataComesBackAsData() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "alice", kSecValueData as String: "pw".data(using: .utf8) as Any,
        ]
        #expect(SecItemAdd(query as CFDictionary, nil) == errSecSuccess)
        var item: CFTypeRef?
        let search: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnAttributes as String: true, kSecReturnData as String: true,
        ]
        #expect(SecItemCopyMatching(search as CFDictionary, &item) == errSecSuccess)
        let existing = item as? [String: Any]
        #expect((existing?[kSecValueData as String] as? Data).flatMap { String(data: $0, encoding: .utf8) } == "pw")
        #expect(existing?[kSecAttrAccount as String] as? String == "alice")
        #expect(SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary) == errSecSuccess)
    }

    /// Apple's GenericKeychain sample: constants into `[String: AnyObject]` without a cast, and
    /// `[kSecMatchLimit as String: kSecMatchLimitOne]` as a `[String: AnyObject]` literal.
    @Test func constantsAreObjects() {
        var query = [String: AnyObject]()
        query[kSecClass as String] = kSecClassGenericPassword
        query[kSecAttrService as String] = service as AnyObject?
        query[kSecAttrAccount as String] = "bob" as AnyObject?
        var add = query
        add[kSecValueData as String] = Data("1".utf8) as AnyObject?
        #expect(SecItemAdd(add as CFDictionary, nil) == noErr)
        let limit: [String: AnyObject] = [kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnData as String: kCFBooleanTrue]
        var result: AnyObject?
        #expect(SecItemCopyMatching(query.merging(limit) { $1 } as CFDictionary, &result) == noErr)
        #expect(result as? Data == Data("1".utf8))
        #expect(SecItemDelete(query as CFDictionary) == noErr)
    }

    /// Results read as `as! CFData`, `as? CFDictionary`, `as? [[String: AnyObject]]` and compared
    /// by `CFGetTypeID`.
    @Test func resultsBridgeToTheFoundationTypes() {
        let base: [String: AnyObject] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service as NSString]
        for account in ["a", "b"] {
            var add = base
            add[kSecAttrAccount as String] = account as CFString
            add[kSecValueData as String] = Data(account.utf8) as CFData
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        }
        var result: CFTypeRef?
        var one = base
        one[kSecAttrAccount as String] = "a" as NSString
        one[kSecReturnData as String] = kCFBooleanTrue
        #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
        #expect(CFGetTypeID(result) == CFDataGetTypeID())
        #expect((result as! CFData) as Data == Data("a".utf8))

        var all = base
        all[kSecMatchLimit as String] = kSecMatchLimitAll
        all[kSecReturnAttributes as String] = kCFBooleanTrue
        result = nil
        #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
        #expect(CFGetTypeID(result) == CFArrayGetTypeID())
        let items = result as? [[String: AnyObject]] ?? []
        #expect(Set(items.compactMap { $0[kSecAttrAccount as String] as? String }) == ["a", "b"])
        #expect(items.allSatisfy { CFGetTypeID($0[kSecAttrAccount as String]) == CFStringGetTypeID() })
        #expect(SecItemDelete(base as CFDictionary) == errSecSuccess)
    }

    /// An access control kept in a `[String: AnyHashable]` query, as Valet keeps one.
    @Test func anAccessControlIsHashable() {
        var error: Unmanaged<CFError>?
        guard let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, [], &error) else {
            Issue.record("SecAccessControlCreateWithFlags failed: \(String(describing: error?.takeRetainedValue()))")
            return
        }
        let add: [String: AnyHashable] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "carol", kSecAttrAccessControl as String: control, kSecValueData as String: Data("s".utf8),
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        #expect(CFGetTypeID(control) == SecAccessControlGetTypeID())
        #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary) == errSecSuccess)
    }

    /// The bundle keys code reads its identity with.
    @Test func bundleKeysAreApples() {
        #expect(kCFBundleIdentifierKey as String == "CFBundleIdentifier")
        #expect(kCFBundleVersionKey as String == "CFBundleVersion")
    }
}
