import ContosoTokens
import Foundation
import Security
import Testing

/// How the app's code meets errSecInteractionNotAllowed (-25308), the status a device gives
/// before its first unlock: the device's fault plan fails the first read, as
/// `shared-keychain device fault add --call SecItemCopyMatching --status errSecInteractionNotAllowed --count 1`
/// asks. Runs only when that plan is set (`CONTOSO_FAULT_PLAN=first-read-25308`, as
/// scripts/secitem-example.sh sets it), since every other run has no plan.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CONTOSO_FAULT_PLAN"] == "first-read-25308"))
struct FaultPlanTests {
    let store = TokenStore(service: "com.contoso.tokens.\(UUID().uuidString.prefix(8))")

    @Test func theFirstReadSeesErrSecInteractionNotAllowedExactlyOnceAndTheTokenIsStillThere() {
        #expect(store.save("t1", account: "alice") == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: store.service,
            kSecAttrAccount as String: "alice", kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnData as String: kCFBooleanTrue as Any,
        ]
        let statuses = (0..<3).map { _ -> OSStatus in
            var result: CFTypeRef?
            return SecItemCopyMatching(query as CFDictionary, &result)
        }
        #expect(statuses == [errSecInteractionNotAllowed, errSecSuccess, errSecSuccess])
        #expect(statuses.filter { $0 == errSecInteractionNotAllowed }.count == 1)
        // The -25308 was not "signed out": the token is there once the device answers.
        #expect(store.token(account: "alice") == "t1")
        #expect(store.delete(account: "alice") == errSecSuccess)
    }
}
