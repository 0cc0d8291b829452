import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

/// ADAL apps in a suite manifest (`sdk: adal`), and `suite check` on the seeds' own ADAL
/// example ("How to enable cross-app SSO on iOS using ADAL"): inline `CFBundleURLTypes` with
/// `CFBundleTypeRole` and `CFBundleURLName`, the legacy redirect URI
/// `x-msauth-mytestiosapp://com.myapp.mytestapp`, `msauth` alone in
/// `LSApplicationQueriesSchemes`.
@Suite("ADAL apps in suite manifests")
struct ADALSuiteTests {
    /// One app of the seeds' example, `sdk` as given (nil: no `sdk` line).
    static func seedApp(_ bundleID: String, scheme: String = "x-msauth-mytestiosapp", sdk: String?) -> String {
        """
          - bundle_id: \(bundleID)
            team_id: ABCDE12345
            client_id: 11111111-2222-3333-4444-555555555555
            redirect_uri: \(scheme)://\(bundleID)
            keychain_group: com.myapp.mycache
        \(sdk.map { "    sdk: \($0)\n" } ?? "")    broker: true
            entitlements: [$(AppIdentifierPrefix)\(bundleID), $(AppIdentifierPrefix)com.myapp.mycache]
            info_plist:
              CFBundleURLTypes:
                - CFBundleTypeRole: Editor
                  CFBundleURLName: \(bundleID)
                  CFBundleURLSchemes: [\(scheme)]
              LSApplicationQueriesSchemes: [msauth]

        """
    }

    static func load(_ apps: [String]) throws -> Suite {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let file = try scratch.write("suite.yaml", "name: MyApp\napps:\n" + apps.joined())
        return try SuiteManifest.load(from: file)
    }

    @Test func sdkIsReadAndMSALIsTheDefault() throws {
        let suite = try Self.load([
            Self.seedApp("com.myapp.mytestapp", sdk: "adal"), Self.seedApp("com.myapp.mytestapp2", sdk: "MSAL"),
            Self.seedApp("com.myapp.mytestapp3", sdk: nil),
        ])
        #expect(suite.apps.map(\.sdk) == [.adal, .msal, .msal])
        #expect(suite.apps[0].infoPlist.urlSchemes == ["x-msauth-mytestiosapp"])
    }

    @Test func anUnknownSDKNamesTheFieldAndTheChoices() throws {
        let error = #expect(throws: SuiteManifestError.self) { try Self.load([Self.seedApp("com.myapp.mytestapp", sdk: "cordova")]) }
        let text = error?.description ?? ""
        #expect(text.contains("sdk") && text.contains("cordova") && text.contains("'adal'") && text.contains("com.myapp.mytestapp"))
    }

    /// The seeds' three ADAL apps pass: no error, no legacy-redirect note and no broker-scheme
    /// finding. Each registers the one scheme the seeds give them all, which iOS does not
    /// route to a defined app: that warning stays.
    @Test func theSeedsADALExamplePasses() throws {
        let suite = try Self.load(["com.myapp.mytestapp", "com.myapp.mytestapp2", "com.myapp.mytestapp3"].map { Self.seedApp($0, sdk: "adal") })
        let report = SuiteChecker.check(suite)
        #expect(report.errorCount == 0, "\(report.findings)")
        #expect(report.passed)
        #expect(!report.findings.contains { [.brokerQuerySchemes, .redirectURILegacy, .redirectURIForm, .redirectSchemeRegistered].contains($0.rule) })
        #expect(Set(report.findings.filter { $0.severity == .warning }.map(\.rule)).isSubset(of: [.urlSchemeUnique]))
    }

    /// With its own scheme per app, the ADAL suite has no warning either.
    @Test func anADALSuiteWithASchemePerAppHasNoWarning() throws {
        let suite = try Self.load([
            Self.seedApp("com.myapp.mytestapp", scheme: "x-msauth-mytestapp", sdk: "adal"),
            Self.seedApp("com.myapp.mytestapp2", scheme: "x-msauth-mytestapp2", sdk: "adal"),
        ])
        let report = SuiteChecker.check(suite)
        #expect(report.errorCount == 0 && report.warningCount == 0, "\(report.findings)")
    }

    /// The same apps with MSAL: MSAL's broker needs msauthv2 as well, and the legacy redirect
    /// URI is noted as MSAL's legacy form.
    @Test func theSameAppsWithMSALStillNeedMsauthv2() throws {
        let suite = try Self.load([
            Self.seedApp("com.myapp.mytestapp", scheme: "x-msauth-mytestapp", sdk: nil),
            Self.seedApp("com.myapp.mytestapp2", scheme: "x-msauth-mytestapp2", sdk: nil),
        ])
        let report = SuiteChecker.check(suite)
        let broker = report.findings.filter { $0.rule == .brokerQuerySchemes }
        #expect(broker.count == 2 && broker.allSatisfy { $0.severity == .error && $0.message.contains("lacks msauthv2") })
        #expect(report.findings.filter { $0.rule == .redirectURILegacy }.count == 2)
    }
}
