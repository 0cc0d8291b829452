import Device
import Foundation
import SuiteManifest
import Testing
import TokenCache

/// Issue 27, finding 7, in the library: the device keeps every setting a manifest entry gives an
/// app, a device value made later (another process) resolves the app to the same settings and
/// token cache configuration, an older registry without them loads, and a hostile one is an
/// error naming the file.
@Suite("An installed app keeps its manifest's settings")
struct InstalledAppSettingsTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    func stateDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("installed-settings-\(UUID().uuidString)")
    }

    @Test(arguments: ["suite", "suite-adal", "suite-per-app"])
    func everySettingOfTheManifestEntryStaysWithTheInstalledApp(_ example: String) throws {
        let state = stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let suite = try SuiteManifest.load(from: Self.examples.appendingPathComponent(example))
        try Device(stateDirectory: state).install(suite)
        for app in suite.apps {
            // A new device value reads the registry as another process would.
            let installed = try #require(try Device(stateDirectory: state).app(app.bundleID))
            #expect(installed.settings == app.settings)
            #expect(installed.settings.tokenCacheConfiguration() == app.settings.tokenCacheConfiguration())
        }
        if example == "suite-adal" {
            let adal = try #require(try Device(stateDirectory: state).app("com.myapp.mytestapp"))
            #expect(adal.settings.tokenCacheConfiguration().sdk == .adal)
            #expect(adal.settings.redirectURI == "x-msauth-mytestiosapp://com.myapp.mytestapp")
        }
        if example == "suite" {
            let mail = try #require(try Device(stateDirectory: state).app("com.contoso.mail"))
            #expect(mail.settings.privileged && mail.settings.certificateBasedAuth && mail.settings.usesBroker == true)
            #expect(try Device(stateDirectory: state).app("com.contoso.notes")?.usesBroker == false)
        }
    }

    @Test func aRegistryAnOlderVersionWroteLoadsWithTheDefaults() throws {
        let state = stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        try FileManager.default.createDirectory(at: state.appendingPathComponent("device"), withIntermediateDirectories: true)
        try Data("""
            [{"clientID": "11111111-2222-3333-4444-555555555555", "familyID": "1", "installedAt": "2026-11-01T10:00:00Z",
              "identity": {"applicationGroups": [], "bundleID": "com.myapp.mytestapp",
                           "keychainAccessGroups": ["ABCDE12345.com.myapp.mytestapp"], "teamID": "ABCDE12345"},
              "manifest": "/suite/suite.yaml", "name": null, "queriedSchemes": ["msauth"], "sharingGroup": "com.myapp.mycache",
              "urlSchemes": ["x-msauth-mytestiosapp"]}]
            """.utf8).write(to: state.appendingPathComponent("device/apps.json"))
        let app = try #require(try Device(stateDirectory: state).app("com.myapp.mytestapp"))
        #expect(app.sdk == nil && app.usesBroker == nil && app.redirectURI == nil)
        #expect(app.settings.tokenCacheConfiguration() == TokenCacheConfiguration(
            clientID: "11111111-2222-3333-4444-555555555555", keychainSharingGroup: "com.myapp.mycache", familyID: "1", sdk: .msal))
    }

    @Test func aHostileRegistryIsAnErrorNamingTheFile() throws {
        let state = stateDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let suite = try SuiteManifest.load(from: Self.examples.appendingPathComponent("suite-adal"))
        try Device(stateDirectory: state).install(suite)
        let registry = state.appendingPathComponent("device/apps.json")
        let written = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: registry)) as? [[String: Any]])
        var hostile: [Data] = [
            Data(String(repeating: "[", count: 200_000).utf8), Data(String(repeating: "{\"a\":", count: 50_000).utf8), Data(), Data("null".utf8),
            Data("[{}]".utf8), Data(#"[{"identity": {"bundleID": "x", "teamID": "nope", "keychainAccessGroups": []}}]"#.utf8),
        ]
        for (key, value) in [("sdk", "cobol"), ("sdk", 7), ("usesBroker", "yes"), ("redirectURI", 1), ("privileged", [1]), ("clientID", NSNull())] as [(String, Any)] {
            hostile.append(try JSONSerialization.data(withJSONObject: written.map { $0.merging([key: value]) { $1 } }))
        }
        for data in hostile {
            try data.write(to: registry)
            let error = #expect(throws: DeviceError.self) { try Device(stateDirectory: state).app("com.myapp.mytestapp") }
            #expect(error?.description.contains(registry.path) == true, "\(error?.description ?? "")")
        }
    }
}
