import Device
import Foundation
import KeychainServices
import Mitigations
import SharedKeychain
import SuiteManifest
import Testing

/// Issue 28, item 1, for SecItem: the environment names an app by the rules every command
/// follows, and its context comes from the device's one factory, so the group's mitigation
/// policy applies to SecItem calls as to commands.
@Suite("SecItem's app, resolved as the commands resolve it", .serialized)
struct SecItemResolutionTests {
    static let sharedGroup = "ABCDE12345.com.microsoft.adalcache"

    /// A device with the example suite installed; returns its state directory and suite folder.
    func device() throws -> (state: URL, suite: URL) {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("secitem-resolution-\(UUID().uuidString)")
        let suite = state.appendingPathComponent("suite")
        _ = try ExampleSuite.write(to: suite)
        try Device(stateDirectory: state).install(try SuiteManifest.load(from: suite))
        return (state, suite)
    }

    /// The drift of a SecItem context that ignored SHARED_KEYCHAIN_ENTITLEMENTS for an installed
    /// app where the CLI refuses `--entitlements` that declare other groups: one rule now.
    @Test func entitlementsThatReDeclareAnInstalledAppAreRefused() throws {
        let (state, suite) = try device()
        defer { try? FileManager.default.removeItem(at: state) }
        var environment = [
            "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_KEYRING": "memory",
            "SHARED_KEYCHAIN_TEAM": "ABCDE12345", "SHARED_KEYCHAIN_ENTITLEMENTS": suite.appendingPathComponent("mail/entitlements.plist").path,
        ]
        // Its own entitlements declare it as installed: accepted, with the installed identity.
        let context = try SecItemContext.fromEnvironment(environment)
        let installed = try #require(try Device(stateDirectory: state).app("com.contoso.mail"))
        #expect(context.keychain.app.accessGroupNames == installed.identity.accessGroupNames)
        // Notes' entitlements are not Mail's.
        environment["SHARED_KEYCHAIN_ENTITLEMENTS"] = suite.appendingPathComponent("notes/entitlements.plist").path
        let refused = #expect(throws: SecItemConfigurationError.self) { try SecItemContext.fromEnvironment(environment) }
        #expect(refused?.status == .missingEntitlement)
        guard case .identityMismatch(let bundleID, _, _) = refused else {
            Issue.record("not an identity mismatch: \(String(describing: refused))")
            return
        }
        #expect(bundleID == "com.contoso.mail")
    }

    /// The drift of SecItem calls that applied no mitigation policy: the state directory's
    /// `policy.json` applies to them as to `item delete`.
    @Test func secItemCallsGoThroughTheGroupsMitigationPolicy() throws {
        let (state, _) = try device()
        defer { try? FileManager.default.removeItem(at: state) }
        try Data(#"{"groups": {"\#(Self.sharedGroup)": {"mitigations": ["audit"]}}}"#.utf8).write(to: state.appendingPathComponent("policy.json"))
        let context = try SecItemContext.fromEnvironment([
            "SHARED_KEYCHAIN_APP": "com.contoso.calendar", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_KEYRING": "memory",
        ])
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecAttrService as String: "s",
            kSecAttrAccessGroup as String: Self.sharedGroup,
        ]
        var added = item
        added[kSecValueData as String] = Data("x".utf8)
        #expect(SecItemContext.with(context) { SecItemAdd(added as CFDictionary, nil) } == errSecSuccess)
        #expect(SecItemContext.with(context) { SecItemDelete(item as CFDictionary) } == errSecSuccess)
        let entries = try AuditJournal(store: context.keychain.store).entries(group: Self.sharedGroup)
        #expect(entries.map(\.app) == ["com.contoso.calendar"])
        #expect(entries.map(\.operation) == ["delete"])
    }
}
