import Foundation
import KeychainServices
import KeychainTestSupport
import SharedKeychain
import Synchronization
import Testing

/// Issue 22 through raw SecItem dictionaries: accounts as Data come back as Data, synchronizable
/// twins each have their own persistent reference, internet passwords have Apple's attributes,
/// and access controls come back and are asked for.
@Suite("SecItem: Data accounts, synchronizable twins, internet passwords, access control")
struct SecItemKeyShapeTests {
    @Test(arguments: TestBackend.memoryAndKeyring)
    func dataAccountsComeBackAsData(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        let account = Data([0xDE, 0xAD, 0xBE, 0xEF])
        apps.run(apps.mail) {
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account, kSecAttrService as String: "svc",
                kSecValueData as String: Data("x".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            #expect(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "text", kSecAttrService as String: "svc"] as CFDictionary, nil) == errSecSuccess)
            var result: CFTypeRef?
            let query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc", kSecReturnAttributes as String: true,
                kSecMatchLimit as String: kSecMatchLimitAll,
            ]
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let found = result as? [[String: Any]] ?? []
            #expect(found.first?[kSecAttrAccount as String] as? Data == account)
            #expect(found.last?[kSecAttrAccount as String] as? String == "text")
            // The Data account finds it; a String of the same UTF-8 is the same key.
            let byData: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account]
            #expect(SecItemCopyMatching(byData as CFDictionary, nil) == errSecSuccess)
            let textAsData: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Data("text".utf8), kSecAttrService as String: "svc",
            ]
            #expect(SecItemAdd(textAsData as CFDictionary, nil) == errSecDuplicateItem)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func synchronizableTwinsHaveTheirOwnPersistentReferences(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            var references: [Data] = []
            for (synchronizable, secret) in [(false, "local"), (true, "synced")] {
                let add: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecAttrService as String: "svc",
                    kSecAttrSynchronizable as String: synchronizable, kSecValueData as String: Data(secret.utf8),
                    kSecReturnPersistentRef as String: true,
                ]
                var result: CFTypeRef?
                #expect(SecItemAdd(add as CFDictionary, &result) == errSecSuccess)
                references.append(result as? Data ?? Data())
            }
            for (reference, secret) in zip(references, ["local", "synced"]) {
                var result: CFTypeRef?
                let query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference, kSecReturnData as String: true,
                ]
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
                #expect(result as? Data == Data(secret.utf8))
            }
            // A reference of the first format (no flag) still finds the item, in both flavours.
            let old = try? JSONEncoder().encode([kSecClassGenericPassword as String, apps.shared, "a", "svc"])
            let any: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: old ?? Data(), kSecMatchLimit as String: kSecMatchLimitAll,
                kSecReturnData as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(any as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [Data])?.count == 2)
            // Deleting with kSecAttrSynchronizableAny removes both.
            let all: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
            #expect(SecItemDelete(all as CFDictionary) == errSecSuccess)
            #expect(SecItemCopyMatching(all as CFDictionary, nil) == errSecItemNotFound)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func internetPasswordsHaveApplesAttributes(_ backend: TestBackend) throws {
        let apps = try Apps(backend)
        apps.run(apps.mail) {
            let add: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrAccount as String: "alice", kSecAttrServer as String: "example.com",
                kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault,
                kSecAttrPort as String: 443, kSecValueData as String: Data("pw".utf8), kSecReturnAttributes as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemAdd(add as CFDictionary, &result) == errSecSuccess)
            let values = result as? [String: Any] ?? [:]
            #expect(values[kSecClass as String] as? String == kSecClassInternetPassword as String)
            #expect(values[kSecAttrServer as String] as? String == "example.com")
            #expect(values[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
            #expect((values[kSecAttrPort as String] as? NSNumber)?.intValue == 443)
            #expect(values[kSecAttrPath as String] as? String == "")
            #expect(values[kSecAttrService as String] == nil)
            // The generic class does not see it; updating it with a service is refused.
            let generic: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice"]
            #expect(SecItemCopyMatching(generic as CFDictionary, nil) == errSecItemNotFound)
            let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"]
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrService as String: "svc"] as CFDictionary) == errSecParam)
            #expect(SecItemUpdate(query as CFDictionary, [kSecAttrPort as String: 8443] as CFDictionary) == errSecSuccess)
            let moved: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrPort as String: 8443, kSecReturnData as String: true]
            #expect(SecItemCopyMatching(moved as CFDictionary, &result) == errSecSuccess)
            #expect(result as? Data == Data("pw".utf8))
            #expect(SecItemDelete([kSecClass as String: kSecClassInternetPassword] as CFDictionary) == errSecSuccess)
        }
    }

    @Test(arguments: TestBackend.memoryAndKeyring)
    func accessControlsComeBackAndAreAskedFor(_ backend: TestBackend) throws {
        let team = try TeamIdentifier(TestBackend.uniqueTeamID())
        let answer = Mutex(AuthenticationDecision.allow)
        let keychain = Keychain(
            app: try AppIdentity(bundleID: "com.contoso.mail", teamID: team),
            store: AnsweringStore(base: try backend.makeStore()) { answer.withLock { $0 } })
        let flags: SecAccessControlCreateFlags = [.biometryCurrentSet, .or, .devicePasscode]
        SecItemContext.with(SecItemContext(keychain)) {
            let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil)
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecAttrService as String: "svc",
                kSecAttrAccessControl as String: control as Any, kSecValueData as String: Data("x".utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
            let attributes: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecReturnAttributes as String: true]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(attributes as CFDictionary, &result) == errSecSuccess)
            let returned = (result as? [String: Any])?[kSecAttrAccessControl as String] as? SecAccessControl
            #expect(returned?.flags == flags)
            #expect(returned?.protection == .whenUnlockedThisDeviceOnly)
            let data: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded", kSecReturnData as String: true]
            let noUI = data.merging([kSecUseNoAuthenticationUI as String: true]) { $1 }
            #expect(SecItemCopyMatching(noUI as CFDictionary, nil) == errSecInteractionNotAllowed)
            let fail = data.merging([kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]) { $1 }
            #expect(SecItemCopyMatching(fail as CFDictionary, nil) == errSecInteractionNotAllowed)
            let skip = data.merging([kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]) { $1 }
            #expect(SecItemCopyMatching(skip as CFDictionary, nil) == errSecItemNotFound)
            #expect(SecItemCopyMatching(data as CFDictionary, nil) == errSecSuccess)
            answer.withLock { $0 = .deny }
            #expect(SecItemCopyMatching(data as CFDictionary, nil) == errSecAuthFailed)
            #expect(SecItemUpdate(attributes.filter { $0.key != kSecReturnAttributes as String } as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecAuthFailed)
            answer.withLock { $0 = .cancel }
            #expect(SecItemCopyMatching(data as CFDictionary, nil) == errSecUserCanceled)
            #expect(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "guarded"] as CFDictionary) == errSecSuccess)
        }
    }
}
