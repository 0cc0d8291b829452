import ContosoTokens
import Foundation
import Security
import Testing

/// Internet passwords and Data-keyed, access-controlled items, as the environment's app, on the
/// environment's keychain (the device answers prompts with its default: allow).
@Suite(.serialized)
struct CredentialTests {
    @Test func sitePasswordsAreInternetPasswordsKeyedByServerPortAndAccount() {
        let site = SitePasswords(server: "login-\(UUID().uuidString.prefix(8)).contoso.com")
        #expect(site.save("pw-443", account: "alice") == errSecSuccess)
        #expect(site.save("pw-8443", account: "alice", port: 8443) == errSecSuccess)
        #expect(site.save("again", account: "alice") == errSecDuplicateItem)
        #expect(site.password(account: "alice") == "pw-443")
        #expect(site.password(account: "alice", port: 8443) == "pw-8443")
        let attributes = site.attributes(account: "alice")
        #expect(attributes?[kSecClass as String] as? String == kSecClassInternetPassword as String)
        #expect(attributes?[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
        #expect(site.deleteAll() == errSecSuccess)
        #expect(site.password(account: "alice") == nil)
    }

    @Test func dataKeyedItemsComeBackAsDataAndProtectedOnesAskFirst() {
        let keys = DeviceKeys(service: "com.contoso.devicekeys.\(UUID().uuidString.prefix(8))")
        let protectedID = Data([0x00, 0xFF, 0x10, 0x80])
        let plainID = Data("plain-id".utf8)
        #expect(keys.save(Data([1, 2, 3]), id: protectedID, protected: true) == errSecSuccess)
        #expect(keys.save(Data([4, 5, 6]), id: plainID, protected: false) == errSecSuccess)
        // The device allows: the key is read after the (emulated) prompt.
        #expect(keys.key(id: protectedID).1 == Data([1, 2, 3]))
        // No UI allowed: errSecInteractionNotAllowed instead of a prompt.
        #expect(keys.key(id: protectedID, allowUI: false).0 == errSecInteractionNotAllowed)
        #expect(keys.key(id: plainID, allowUI: false).1 == Data([4, 5, 6]))
        // Skip: only the key that needs no prompt, its id as Data.
        #expect(keys.idsUsableWithoutPrompt() == [plainID])
        #expect(keys.deleteAll() == errSecSuccess)
    }
}
