import Foundation
import KeychainServices
import KeychainTestSupport
import Testing

/// Key items (`kSecClassKey`) through SecItem, as MSAL keeps its broker key: the dictionaries of
/// IdentityCore's `MSIDBrokerKeyProvider` and its tests' `MSIDTestBrokerKeyProviderHelper`,
/// written in Swift, with two apps of one suite sharing the group.
@Suite("SecItem: key items")
struct SecItemKeyItemTests {
    /// `MSID_BROKER_SYMMETRIC_KEY_TAG`, NUL included.
    static let brokerTag = Data("com.microsoft.adBrokerKey\0".utf8)
    /// `CSSM_ALGID_AES`.
    static let aes = UInt32(0x8000_0001)

    /// `MSIDTestBrokerKeyProviderHelper addKey:accessGroup:applicationTagData:` (and
    /// `createBrokerKeyWithError:`'s dictionary): a symmetric AES key of 256 bits.
    static func addKey(_ keyData: Data, group: String, tag: Data = brokerTag) -> OSStatus {
        let attributes: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
            kSecAttrApplicationTag as String: tag,
            kSecAttrKeyType as String: NSNumber(value: aes),
            kSecAttrKeySizeInBits as String: NSNumber(value: 32 << 3),
            kSecAttrEffectiveKeySize as String: NSNumber(value: 32 << 3),
            kSecAttrCanEncrypt as String: true,
            kSecAttrCanDecrypt as String: true,
            kSecValueData as String: keyData,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            kSecAttrAccessGroup as String: group,
        ]
        return SecItemAdd(attributes as CFDictionary, nil)
    }

    /// `brokerKeyWithError:`'s first query: tag, type, data, group.
    static func brokerKey(group: String) -> (OSStatus, Data?) {
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: brokerTag,
            kSecAttrKeyType as String: NSNumber(value: aes), kSecReturnData as String: true, kSecAttrAccessGroup as String: group,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result as? Data)
    }

    /// testBrokerKeyWithError_whenKeyInKeychain_shouldReturnKey, across apps: Mail adds the
    /// broker key to the shared group; Calendar finds it with its tag and class and gets the
    /// bytes as given; Notes, outside the group, finds nothing.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func brokerKeyWithError_whenKeyInKeychain_shouldReturnKey(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let keyData = Data((0..<32).map { UInt8($0) })
        #expect(apps.run(apps.mail) { Self.addKey(keyData, group: apps.shared) } == errSecSuccess)
        let (status, found) = apps.run(apps.calendar) { Self.brokerKey(group: apps.shared) }
        #expect(status == errSecSuccess)
        #expect(found == keyData)
        let attributes = try apps.run(apps.calendar) { () throws -> [String: Any] in
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let rows = try #require(result as? [[String: Any]])
            #expect(rows.count == 1)
            return try #require(rows.first)
        }
        #expect(attributes[kSecClass as String] as? String == kSecClassKey as String)
        #expect(attributes[kSecAttrAccessGroup as String] as? String == apps.shared)
        #expect(attributes[kSecAttrApplicationTag as String] as? Data == Self.brokerTag)
        #expect(attributes[kSecAttrApplicationLabel as String] as? Data == Data())
        // iOS returns the class, type and sizes as numbers (its constants are their strings).
        #expect((attributes[kSecAttrKeyClass as String] as? NSNumber)?.intValue == 2)
        #expect((attributes[kSecAttrKeyType as String] as? NSNumber)?.uint32Value == Self.aes)
        #expect((attributes[kSecAttrKeySizeInBits as String] as? NSNumber)?.intValue == 256)
        #expect((attributes[kSecAttrEffectiveKeySize as String] as? NSNumber)?.intValue == 256)
        #expect(attributes[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        #expect(attributes[kSecAttrAccount as String] == nil)
        #expect(attributes[kSecAttrService as String] == nil)
        #expect(attributes[kSecValueData as String] == nil)
        #expect(apps.run(apps.notes) { Self.brokerKey(group: apps.shared).0 } == errSecMissingEntitlement)
        #expect(apps.run(apps.notes) { SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil) } == errSecItemNotFound)
    }

    /// Apple's primary key for keys is class, label, tag, type, sizes and group: the same again
    /// is errSecDuplicateItem (-25299); another tag, size or group is another key.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func aKeyWithTheSamePrimaryKeyIsADuplicate(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let mailGroup = "\(apps.team).com.contoso.mail"
        apps.run(apps.mail) {
            #expect(Self.addKey(Data("1".utf8), group: apps.shared) == errSecSuccess)
            #expect(Self.addKey(Data("2".utf8), group: apps.shared) == errSecDuplicateItem)
            #expect(Self.addKey(Data("3".utf8), group: apps.shared, tag: Data("custom-tag-test".utf8)) == errSecSuccess)
            let smaller: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                kSecAttrApplicationTag as String: Self.brokerTag, kSecAttrKeyType as String: NSNumber(value: Self.aes),
                kSecAttrKeySizeInBits as String: 128, kSecAttrEffectiveKeySize as String: 128, kSecValueData as String: Data("4".utf8),
                kSecAttrAccessGroup as String: apps.shared,
            ]
            #expect(SecItemAdd(smaller as CFDictionary, nil) == errSecSuccess)
            #expect(Self.addKey(Data("5".utf8), group: mailGroup) == errSecSuccess)
        }
        // The shared group's broker key is the first one, unchanged by the duplicate.
        #expect(apps.run(apps.calendar) { Self.brokerKey(group: apps.shared).1 } == Data("1".utf8))
        #expect(try apps.everything().count == 4)
    }

    /// `saveApplicationToken:forClientId:` updates, and adds when the update finds nothing;
    /// `getApplicationToken:` reads it back; `deleteSymmetricKeyWithError:` deletes by tag, type
    /// and group, and a second delete is errSecItemNotFound.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func saveApplicationTokenUpdatesOrAddsAndDeleteSymmetricKeyRemoves(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let tag = Data("com.microsoft.broker.application_token-client".utf8)
        func save(_ token: String) -> OSStatus {
            var attributes: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecAttrAccessGroup as String: apps.shared,
            ]
            let update: [String: Any] = [kSecValueData as String: Data(token.utf8)]
            var status = SecItemUpdate(attributes as CFDictionary, update as CFDictionary)
            if status == errSecItemNotFound {
                attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
                attributes.merge(update) { $1 }
                status = SecItemAdd(attributes as CFDictionary, nil)
            }
            return status
        }
        func read() -> Data? {
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnData as String: true,
                kSecAttrAccessGroup as String: apps.shared,
            ]
            var result: CFTypeRef?
            return SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess ? result as? Data : nil
        }
        #expect(apps.run(apps.mail) { save("first") } == errSecSuccess)
        #expect(apps.run(apps.calendar) { save("second") } == errSecSuccess)
        #expect(apps.run(apps.mail) { read() } == Data("second".utf8))
        #expect(try apps.everything().count == 1)
        #expect(apps.run(apps.mail) { Self.addKey(Data("k".utf8), group: apps.shared) } == errSecSuccess)
        let deleteQuery: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.brokerTag,
            kSecAttrKeyType as String: NSNumber(value: Self.aes), kSecAttrAccessGroup as String: apps.shared,
        ]
        #expect(apps.run(apps.calendar) { SecItemDelete(deleteQuery as CFDictionary) } == errSecSuccess)
        #expect(apps.run(apps.calendar) { SecItemDelete(deleteQuery as CFDictionary) } == errSecItemNotFound)
        // The application token, another key of the group, is still there.
        #expect(apps.run(apps.mail) { read() } == Data("second".utf8))
    }

    /// A key's persistent reference finds it again, with no class, as for passwords.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func aKeysPersistentReferenceFindsIt(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        try apps.run(apps.mail) {
            #expect(Self.addKey(Data("k1".utf8), group: apps.shared) == errSecSuccess)
            #expect(Self.addKey(Data("k2".utf8), group: apps.shared, tag: Data("other".utf8)) == errSecSuccess)
            var result: CFTypeRef?
            let query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "other", kSecReturnPersistentRef as String: true,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let reference = try #require(result as? Data)
            var data: CFTypeRef?
            let read: [String: Any] = [kSecValuePersistentRef as String: reference, kSecReturnData as String: true]
            #expect(SecItemCopyMatching(read as CFDictionary, &data) == errSecSuccess)
            #expect(data as? Data == Data("k2".utf8))
        }
    }

    /// What keys do not have, or what is not implemented for them, fails with Apple's status
    /// and writes nothing; the SecKey functions answer errSecUnimplemented; certificates and
    /// identities stay not found.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func whatKeysDoNotHaveIsRefused(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("t".utf8), kSecValueData as String: Data("k".utf8)]
        func with(_ extra: [String: Any]) -> [String: Any] { key.merging(extra) { $1 } }
        let refused: [(String, [String: Any], OSStatus)] = [
            ("an account", with([kSecAttrAccount as String: "a"]), errSecParam),
            ("a service", with([kSecAttrService as String: "s"]), errSecParam),
            ("a server", with([kSecAttrServer as String: "example.com"]), errSecParam),
            ("a generic attribute", with([kSecAttrGeneric as String: Data()]), errSecParam),
            ("a key class that is none", with([kSecAttrKeyClass as String: "3"]), errSecParam),
            ("a key type that is no number", with([kSecAttrKeyType as String: "aes"]), errSecParam),
            ("a negative key size", with([kSecAttrKeySizeInBits as String: -1]), errSecParam),
            ("a tag that is a number", with([kSecAttrApplicationTag as String: 7]), errSecParam),
            ("a usage flag that is no boolean", with([kSecAttrCanSign as String: "yes"]), errSecParam),
            ("a start date", with([kSecAttrStartDate as String: Date()]), errSecUnimplemented),
            ("the Secure Enclave", with([kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]), errSecUnimplemented),
            ("a SecKey asked for", with([kSecReturnRef as String: true]), errSecUnimplemented),
            ("a tag on a password", [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecAttrApplicationTag as String: Data()], errSecParam),
            ("a key class on a password", [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "x", kSecAttrKeyClass as String: kSecAttrKeyClassPublic], errSecParam),
            ("a certificate", [kSecClass as String: kSecClassCertificate, kSecValueData as String: Data()], errSecUnimplemented),
        ]
        for (name, attributes, status) in refused {
            #expect(apps.run(apps.mail) { SecItemAdd(attributes as CFDictionary, nil) } == status, "\(name)")
        }
        #expect(try apps.everything().isEmpty)
        apps.run(apps.mail) {
            #expect(SecItemAdd(key as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("t".utf8)]
            // A key's primary-key attributes cannot be changed here; its data and label can.
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrApplicationTag as String: Data("u".utf8)] as CFDictionary) == errSecUnimplemented)
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrKeyType as String: 42] as CFDictionary) == errSecUnimplemented)
            #expect(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8), kSecAttrLabel as String: "l"] as CFDictionary) == errSecSuccess)
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("new".utf8))
            for itemClass in [kSecClassCertificate, kSecClassIdentity] {
                #expect(SecItemCopyMatching([kSecClass as String: itemClass] as CFDictionary, nil) == errSecItemNotFound)
                #expect(SecItemDelete([kSecClass as String: itemClass] as CFDictionary) == errSecItemNotFound)
            }
        }
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        #expect(SecKeyCreateRandomKey(parameters as CFDictionary, &error) == nil)
        let failure = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetCode(failure) == Int(errSecUnimplemented))
    }
}
