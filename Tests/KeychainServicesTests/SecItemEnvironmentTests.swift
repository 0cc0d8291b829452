import Device
import Foundation
import KeychainServices
import SharedKeychain
import SuiteManifest
import Testing

/// Where SecItem calls get their app and store when the code says nothing: the environment.
/// Serialized: one test sets the process-wide context.
@Suite("SecItem context from the environment", .serialized)
struct SecItemEnvironmentTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("secitem-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func missingOrBadSettingsSayWhatToSet() throws {
        let state = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        #expect(throws: SecItemConfigurationError.noApp) { try SecItemContext.fromEnvironment([:]) }
        #expect(throws: SecItemConfigurationError.badKeyring("disk")) {
            try SecItemContext.fromEnvironment(["SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_KEYRING": "disk"])
        }
        let notInstalled = #expect(throws: SecItemConfigurationError.self) {
            try SecItemContext.fromEnvironment(["SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_KEYRING": "memory"])
        }
        #expect(notInstalled?.status == .missingEntitlement)
        #expect(notInstalled?.description.contains("SHARED_KEYCHAIN_TEAM") == true)
        let badTeam = #expect(throws: SecItemConfigurationError.self) {
            try SecItemContext.fromEnvironment([
                "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_TEAM": "nope",
                "SHARED_KEYCHAIN_KEYRING": "memory",
            ])
        }
        #expect(badTeam?.status == .notAvailable)
        let plist = state.appendingPathComponent("broken.entitlements")
        try Data("<plist><dict><key>keychain-access-groups".utf8).write(to: plist)
        #expect(throws: SecItemConfigurationError.self) {
            try SecItemContext.fromEnvironment([
                "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_TEAM": "ABCDE12345",
                "SHARED_KEYCHAIN_ENTITLEMENTS": plist.path, "SHARED_KEYCHAIN_KEYRING": "memory",
            ])
        }
    }

    @Test func anAdHocAppComesFromTeamAndEntitlements() throws {
        let state = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let plist = state.appendingPathComponent("mail.entitlements")
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>keychain-access-groups</key><array>
            <string>$(AppIdentifierPrefix)com.microsoft.adalcache</string></array></dict></plist>
            """.utf8).write(to: plist)
        let context = try SecItemContext.fromEnvironment([
            "SHARED_KEYCHAIN_APP": "com.contoso.mail", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_TEAM": "ABCDE12345",
            "SHARED_KEYCHAIN_ENTITLEMENTS": plist.path, "SHARED_KEYCHAIN_KEYRING": "memory",
        ])
        #expect(context.keychain.app.accessGroupNames == ["ABCDE12345.com.microsoft.adalcache", "ABCDE12345.com.contoso.mail"])
        #expect(context.keychain.store.name == "memory")
    }

    @Test func anInstalledAppComesFromTheDevice() throws {
        let state = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let suiteDirectory = state.appendingPathComponent("suite")
        _ = try ExampleSuite.write(to: suiteDirectory)
        _ = try Device(stateDirectory: state).install(try SuiteManifest.load(from: suiteDirectory))
        let environment = ["SHARED_KEYCHAIN_APP": "com.contoso.calendar", "SHARED_KEYCHAIN_STATE_DIR": state.path, "SHARED_KEYCHAIN_KEYRING": "memory"]
        let context = try SecItemContext.fromEnvironment(environment)
        #expect(context.keychain.app.bundleID == "com.contoso.calendar")
        #expect(context.keychain.app.accessGroupNames.contains("ABCDE12345.com.microsoft.adalcache"))
        // An installed app cannot claim another team.
        var claimed = environment
        claimed["SHARED_KEYCHAIN_TEAM"] = "ZZZZZ99999"
        #expect(throws: SecItemConfigurationError.self) { try SecItemContext.fromEnvironment(claimed) }
    }

    @Test func withoutAContextEveryCallReturnsAStatusAndAProcessContextIsUsedWhenSet() throws {
        // The test process has no SHARED_KEYCHAIN_APP: not available, never a crash.
        try #require(ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_APP"] == nil)
        let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecValueData as String: Data()]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecNotAvailable)
        #expect(SecItemCopyMatching(item as CFDictionary, nil) == errSecNotAvailable)

        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: TeamIdentifier("ABCDE12345"))
        SecItemContext.use(SecItemContext(app: app, store: InMemoryStore()))
        defer { SecItemContext.use(nil) }
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemCopyMatching(item as CFDictionary, nil) == errSecSuccess)
    }
}
