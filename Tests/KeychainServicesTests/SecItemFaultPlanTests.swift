import Device
import Foundation
import KeychainServices
import SharedKeychain
import Testing

/// Issue 30, point 4: SecItem code finds the device's fault plan through the state directory
/// (`SHARED_KEYCHAIN_STATE_DIR`), as `swift test` of a package using SecItem does.
@Suite("SecItem calls under the device's fault plan")
struct SecItemFaultPlanTests {
    /// A context from the environment on a fresh state directory, as an ad-hoc com.contoso.mail.
    static func context(state: URL) throws -> SecItemContext {
        try SecItemContext.fromEnvironment([
            "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_TEAM": "ABCDE12345",
            "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_KEYRING": "memory",
        ])
    }

    @Test func aPlanFailingTheFirstReadWithErrSecInteractionNotAllowedIsSeenExactlyOnce() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("secitem-faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let context = try Self.context(state: state)
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecAttrService as String: "rt",
            kSecValueData as String: Data("t".utf8),
        ]
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecAttrService as String: "rt",
            kSecReturnData as String: true,
        ]
        #expect(SecItemContext.with(context) { SecItemAdd(item as CFDictionary, nil) } == errSecSuccess)
        try Device(stateDirectory: state).faultPlan.add(
            try FaultRule(call: "SecItemCopyMatching", status: "errSecInteractionNotAllowed", app: "com.contoso.mail", count: 1))
        let statuses = (0..<4).map { _ in
            var result: CFTypeRef?
            return SecItemContext.with(context) { SecItemCopyMatching(query as CFDictionary, &result) }
        }
        #expect(statuses == [errSecInteractionNotAllowed, errSecSuccess, errSecSuccess, errSecSuccess])
        #expect(try Device(stateDirectory: state).faultPlan.read().rules.map(\.injected) == [1])
    }

    @Test func aWriteFaultOnOneGroupLeavesTheOtherGroupsWrites() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("secitem-faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let context = try Self.context(state: state)
        try Device(stateDirectory: state).faultPlan.add(
            try FaultRule(call: "SecItemAdd", status: "-25299", group: "ABCDE12345.com.contoso.other", every: 1))
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecValueData as String: Data()]
        // The app's own group is not the rule's: the add goes through.
        #expect(SecItemContext.with(context) { SecItemAdd(item as CFDictionary, nil) } == errSecSuccess)
        #expect(try Device(stateDirectory: state).faultPlan.read().rules.map(\.matched) == [0])
    }
}
