import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

// Issue 31, point 1: the Core Foundation types are classes, as on Apple's platforms. Each test
// writes SecItem code the way Apple's documentation ("Adding a password to the keychain",
// "Searching for keychain items") and the common wrappers write it; each line failed to compile
// while `CFString` was `String` and `CFData` was `Data`. The example package
// (examples/secitem-package, target KeychainIdioms5) compiles the same idioms in Swift 5 mode.

@Suite("SecItem: Core Foundation types as Apple has them")
struct CoreFoundationIdiomTests {
    /// Apple's GenericKeychain sample (`KeychainPasswordItem.keychainQuery`, `readPassword`):
    /// constants straight into `[String: AnyObject]`, no `as AnyObject`.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func constantsGoIntoAnAnyObjectDictionaryWithoutACast(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            var query = [String: AnyObject]()
            query[kSecClass as String] = kSecClassGenericPassword
            query[kSecAttrService as String] = "svc" as AnyObject?
            query[kSecAttrAccount as String] = "alice" as AnyObject?
            var add = query
            add[kSecValueData as String] = Data("secret".utf8) as AnyObject?
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            #expect(SecItemAdd(add as CFDictionary, nil) == noErr)

            query[kSecMatchLimit as String] = kSecMatchLimitOne
            query[kSecReturnAttributes as String] = kCFBooleanTrue
            query[kSecReturnData as String] = kCFBooleanTrue
            var queryResult: AnyObject?
            let status = withUnsafeMutablePointer(to: &queryResult) { SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0)) }
            #expect(status == noErr)
            let item = try #require(queryResult as? [String: AnyObject])
            #expect(item[kSecValueData as String] as? Data == Data("secret".utf8))
            #expect(item[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
            #expect(item[kSecClass as String] as? CFString == kSecClassGenericPassword)
        }
    }

    /// SwiftKeychainWrapper's literal (`KeychainWrapper.swift`, `allKeys`): a constant as a value
    /// in a `[String: AnyObject]` literal, and a class passed where `AnyObject` is asked for.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func aLiteralOfConstantsIsAnAnyObjectDictionary(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            let add: [String: AnyObject] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a" as NSString,
                kSecValueData as String: Data("1".utf8) as CFData,
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let search: [String: AnyObject] = [
                kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnAttributes as String: kCFBooleanTrue,
            ]
            var result: AnyObject?
            #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess)
            let items = result as? [[String: Any]]
            #expect(items?.compactMap { $0[kSecAttrAccount as String] as? String } == ["a"])
            func deleteEvery(_ itemClass: AnyObject) -> OSStatus { SecItemDelete([kSecClass as String: itemClass] as CFDictionary) }
            #expect(deleteEvery(kSecClassGenericPassword) == errSecSuccess)
            #expect(deleteEvery(kSecClassGenericPassword) == errSecItemNotFound)
        }
    }

    /// Results read every way code reads them: `as? Data`, `as! CFData`, `as? CFDictionary`,
    /// `as? [String: Any]`, `as? [Data]`, and `CFGetTypeID` against the `...GetTypeID()` functions.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func resultsBridgeEveryWayCodeReadsThem(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            let add = [kSecClass: kSecClassGenericPassword, kSecAttrAccount: "a", kSecValueData: Data("bytes".utf8)] as CFDictionary
            #expect(SecItemAdd(add, nil) == errSecSuccess)
            var result: CFTypeRef?
            let one = [kSecClass: kSecClassGenericPassword, kSecReturnData: kCFBooleanTrue as Any] as [CFString: Any]
            #expect(SecItemCopyMatching(one as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("bytes".utf8))
            let data = result as! CFData
            #expect(CFDataGetLength(data) == 5)
            #expect(CFGetTypeID(result) == CFDataGetTypeID())
            #expect(String(data: data as Data, encoding: .utf8) == "bytes")

            result = nil
            let attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true, kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(attributes as CFDictionary, &result) == errSecSuccess)
            #expect(CFGetTypeID(result) == CFDictionaryGetTypeID())
            let dictionary = try #require(result as? CFDictionary)
            #expect(dictionary[kSecAttrAccount as String] as? String == "a")
            let values = try #require(result as? [String: Any])
            #expect(values[kSecValueData as String] as? Data == Data("bytes".utf8))
            #expect(CFGetTypeID(values[kSecAttrAccount as String] as CFTypeRef?) == CFStringGetTypeID())
            #expect(CFGetTypeID(values[kSecAttrSynchronizable as String] as CFTypeRef?) == CFNumberGetTypeID()
                || CFGetTypeID(values[kSecAttrSynchronizable as String] as CFTypeRef?) == CFBooleanGetTypeID())

            result = nil
            let all: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            #expect(CFGetTypeID(result) == CFArrayGetTypeID())
            #expect(result as? [Data] == [Data("bytes".utf8)])
            #expect((result as? CFArray)?.count == 1)
        }
    }

    /// SwiftKeychainWrapper's `allKeys()` (`KeychainWrapper.swift`): results read as
    /// `[[AnyHashable: Any]]` and an attribute looked up by the constant itself,
    /// `attributes[kSecAttrAccount]`. On Apple's platforms a `CFString` in an `AnyHashable` is
    /// the `String` it bridges to, so the lookup finds the key the result holds.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func anAttributeIsFoundByItsConstantInAnAnyHashableDictionary(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Data("k".utf8), kSecValueData as String: Data("v".utf8)]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: kCFBooleanTrue as Any, kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            var result: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let rows = try #require(result as? [[AnyHashable: Any]])
            #expect(rows.compactMap { $0[kSecAttrAccount] as? Data } == [Data("k".utf8)])
            #expect(AnyHashable(kSecAttrAccount) == AnyHashable("acct"))
        }
    }

    /// Strings both ways: `as String`, `as CFString`, `as? String` from `Any`, and equality of a
    /// constant with the value a result holds.
    @Test func stringsBridgeBothWays() {
        let name: String = kSecAttrAccessibleWhenUnlocked as String
        #expect(name == "ak")
        let back = name as CFString
        #expect(back == kSecAttrAccessibleWhenUnlocked)
        let boxed: Any = kSecMatchLimitOne
        #expect(boxed as? String == "m_LimitOne")
        #expect(CFGetTypeID(kSecClass) == CFStringGetTypeID())
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 42)) == CFNumberGetTypeID())
        #expect(CFBooleanGetValue(kCFBooleanTrue) && !CFBooleanGetValue(kCFBooleanFalse))
    }

    /// Valet's `Service.swift`: a `SecAccessControl` in a `[String: AnyHashable]` query; two
    /// made alike are equal and hash alike, as `CFEqual` and `CFHash` have them.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func anAccessControlIsHashable(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
        let same = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
        let other = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, .userPresence, nil))
        #expect(control == same && control.hashValue == same.hashValue)
        #expect(control != other)
        #expect(Set([control, same, other]).count == 2)
        #expect(CFGetTypeID(control) == SecAccessControlGetTypeID())
        apps.run(apps.mail) {
            let add: [String: AnyHashable] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded",
                kSecAttrAccessControl as String: control, kSecValueData as String: Data("s".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            var result: AnyObject?
            let search: [String: AnyHashable] = [kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true]
            #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrAccessControl as String] as? SecAccessControl == control)
        }
    }
}
