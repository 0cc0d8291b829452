import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Testing

// What real keychain code relies on (issue 22, REFERENCE section 1), written fresh in the shapes
// the popular wrappers use. Each test compiles the idiom as iOS code writes it; it failed to
// compile (or returned -4) before.

@Suite("SecItem: the idioms and symbols real code uses")
struct RealCodeIdiomTests {
    /// `kSecClassGenericPassword as AnyObject` values, a `[String: AnyObject]` and a
    /// `[String?: AnyObject]` query, an NSMutableDictionary: all pass `as CFDictionary`.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func everyDictionaryShapeConverts(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            let add: [String: AnyObject] = [
                kSecClass as String: kSecClassGenericPassword as AnyObject,
                kSecAttrService as String: "svc" as AnyObject,
                kSecAttrAccount as String: "anyobject" as AnyObject,
                kSecValueData as String: Data("1".utf8) as AnyObject,
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == noErr)
            // SwiftKeychainWrapper's shape: optional keys.
            var query: [String?: AnyObject] = [kSecClass as String: kSecClassGenericPassword as AnyObject]
            query[kSecAttrAccount as String] = "anyobject" as AnyObject
            query[kSecReturnData as String] = kCFBooleanTrue
            var result: AnyObject?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("1".utf8))
            let mutable = NSMutableDictionary()
            mutable[kSecClass] = kSecClassGenericPassword
            mutable[kSecAttrAccount] = "anyobject"
            #expect(SecItemDelete(mutable) == errSecSuccess)
        }
    }

    /// A "wipe everything" loop over every class: classes that hold nothing are
    /// errSecItemNotFound, as on a fresh device; a key added afterwards is stored.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func wipeEverythingLoopsSeeNothingToDo(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecValueData as String: Data("x".utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            for itemClass in [kSecClassGenericPassword, kSecClassKey, kSecClassCertificate, kSecClassIdentity] {
                let status = SecItemDelete([kSecClass as String: itemClass] as CFDictionary)
                #expect(status == (itemClass == kSecClassGenericPassword ? errSecSuccess : errSecItemNotFound), "\(itemClass)")
                var result: CFTypeRef?
                let search: [String: Any] = [kSecClass as String: itemClass, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true]
                #expect(SecItemCopyMatching(search as CFDictionary, &result) == errSecItemNotFound)
            }
            #expect(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueData as String: Data()] as CFDictionary, nil) == errSecSuccess)
        }
    }

    /// KeychainAccess asks for a reference together with data and attributes: accepted, and
    /// the other returns still come back.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func returnRefIsAcceptedBesideOtherReturns(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: "a",
                kSecValueData as String: Data("x".utf8),
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecAttrAccount as String: "a",
                kSecReturnData as String: true, kSecReturnAttributes as String: true, kSecReturnRef as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let attributes = result as? [String: Any]
            #expect(attributes?[kSecValueData as String] as? Data == Data("x".utf8))
            #expect(attributes?[kSecAttrAccount as String] as? String == "a")
            var reference: CFTypeRef?
            let alone: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecReturnRef as String: true]
            #expect(SecItemCopyMatching(alone as CFDictionary, &reference) == errSecSuccess)
            #expect(reference is Data)
        }
    }

    /// An access control's protection class becomes the item's accessibility.
    @Test(arguments: TestBackend.memoryAndKeyring)
    func accessControlSetsTheProtectionClass(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        var error: Unmanaged<CFError>?
        let access = try #require(SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, .userPresence, &error))
        #expect(error == nil)
        #expect(access.flags == .userPresence)
        apps.run(apps.mail) {
            let item: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecValueData as String: Data("x".utf8),
                kSecAttrAccessControl as String: access, kSecUseNoAuthenticationUI as String: false,
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecReturnAttributes as String: true]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
        }
        // A protection that is not Apple's: nil, with a CFError that says why.
        #expect(SecAccessControlCreateWithFlags(kCFAllocatorDefault, "sometimes", [], &error) == nil)
        let failure = try #require(error?.takeRetainedValue())
        #expect(CFErrorGetCode(failure) == Int(errSecParam))
        #expect(CFErrorGetDomain(failure) == "NSOSStatusErrorDomain")
        #expect((CFErrorCopyUserInfo(failure) as? [String: Any])?["NSDescription"] is String)
    }

    /// The symbols real code names, with Apple's types and values.
    @Test func symbolsHaveApplesValues() {
        #expect(noErr == 0 && errSecBadReq == -909 && errSecInternalComponent == -2070)
        let protocols = [
            kSecAttrProtocolFTP, kSecAttrProtocolFTPAccount, kSecAttrProtocolHTTP, kSecAttrProtocolIRC, kSecAttrProtocolNNTP,
            kSecAttrProtocolPOP3, kSecAttrProtocolSMTP, kSecAttrProtocolSOCKS, kSecAttrProtocolIMAP, kSecAttrProtocolLDAP,
            kSecAttrProtocolAppleTalk, kSecAttrProtocolAFP, kSecAttrProtocolTelnet, kSecAttrProtocolSSH, kSecAttrProtocolFTPS,
            kSecAttrProtocolHTTPS, kSecAttrProtocolHTTPProxy, kSecAttrProtocolHTTPSProxy, kSecAttrProtocolFTPProxy, kSecAttrProtocolSMB,
            kSecAttrProtocolRTSP, kSecAttrProtocolRTSPProxy, kSecAttrProtocolDAAP, kSecAttrProtocolEPPC, kSecAttrProtocolIPP,
            kSecAttrProtocolNNTPS, kSecAttrProtocolLDAPS, kSecAttrProtocolTelnetS, kSecAttrProtocolIMAPS, kSecAttrProtocolIRCS,
            kSecAttrProtocolPOP3S,
        ]
        #expect(protocols.count == 31 && Set(protocols).count == 31 && protocols.allSatisfy { ($0 as String).utf8.count == 4 })
        #expect(kSecAttrProtocolHTTPS == "htps" && kSecAttrProtocolSSH == "ssh ")
        let authentication = [
            kSecAttrAuthenticationTypeNTLM, kSecAttrAuthenticationTypeMSN, kSecAttrAuthenticationTypeDPA, kSecAttrAuthenticationTypeRPA,
            kSecAttrAuthenticationTypeHTTPBasic, kSecAttrAuthenticationTypeHTTPDigest, kSecAttrAuthenticationTypeHTMLForm,
            kSecAttrAuthenticationTypeDefault,
        ]
        #expect(Set(authentication).count == 8 && kSecAttrAuthenticationTypeDefault == "dflt")
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8 && SecAccessControlCreateFlags.touchIDAny == .biometryAny)
        let flags: CFOptionFlags = SecAccessControlCreateFlags.devicePasscode.rawValue
        #expect(flags == 16)
        var bytes = [UInt8](repeating: 0, count: 64)
        #expect(SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes) == errSecSuccess)
        var again = [UInt8](repeating: 0, count: 64)
        #expect(SecRandomCopyBytes(kSecRandomDefault, again.count, &again) == errSecSuccess)
        #expect(bytes != again)
    }
}
