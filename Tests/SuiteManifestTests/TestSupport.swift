import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest
import TokenCache

/// The copied Fixtures folder.
func fixture(_ path: String) throws -> URL {
    let root = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
    return root.appendingPathComponent(path)
}

/// A fresh directory under the temporary directory, removed by `cleanUp()`.
struct ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("suite-tests-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` (creating folders) and returns its URL.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        try write(name, Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
        return file
    }

    /// Writes a property list.
    @discardableResult
    func plist(_ name: String, _ root: [String: Any], format: PropertyListSerialization.PropertyListFormat = .xml) throws -> URL {
        try write(name, PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0))
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Builds suites in code for the rule tests: by default every app is configured correctly,
/// so a test changes just the setting its rule is about.
enum Fixture {
    static let team = try! TeamIdentifier("ABCDE12345")
    static let otherTeam = try! TeamIdentifier("ZZZZZ99999")
    static let clientID = "7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d"
    static let bundleIDs = ["com.contoso.mail", "com.contoso.calendar", "com.contoso.notes"]

    static func app(
        _ bundleID: String,
        team: TeamIdentifier = team,
        clientID: String = clientID,
        redirectURI: String? = nil,
        keychainGroup: String = "com.microsoft.adalcache",
        broker: Bool = false,
        certificateAuth: Bool = false,
        certificateAuthRedirectURI: String? = nil,
        privileged: Bool = false,
        entitlements: [String]? = nil,
        urlSchemes: [String]? = nil,
        queriesSchemes: [String]? = nil,
        bundleIdentifier: String? = nil,
        intune: IntuneSettings? = nil
    ) -> SuiteApp {
        let redirect = redirectURI ?? RedirectURI.msalDefault(bundleID: bundleID)
        let scheme = RedirectURI(redirect)?.scheme ?? "msauth.\(bundleID)"
        return SuiteApp(
            bundleID: bundleID,
            teamID: team,
            clientID: clientID,
            redirectURI: redirect,
            keychainGroup: try! AccessGroup(teamID: team, identifier: keychainGroup),
            usesBroker: broker,
            certificateBasedAuth: certificateAuth,
            certificateAuthRedirectURI: certificateAuthRedirectURI,
            privileged: privileged,
            entitlements: Entitlements(keychainAccessGroups: entitlements ?? [
                "$(AppIdentifierPrefix)\(bundleID)", "$(AppIdentifierPrefix)\(keychainGroup)",
            ], applicationIdentifier: "\(team.rawValue).\(bundleID)"),
            infoPlist: InfoPlist(
                bundleIdentifier: bundleIdentifier ?? bundleID,
                urlSchemes: urlSchemes ?? [scheme],
                queriesSchemes: queriesSchemes ?? (broker ? ["msauth", "msauthv2"] : [])),
            intune: intune)
    }

    /// Three correct apps (the first privileged), with `changes` applied by bundle ID.
    static func suite(
        registeredRedirectURIs: [String]? = nil,
        _ changes: [String: SuiteApp] = [:]
    ) throws -> Suite {
        let apps = bundleIDs.enumerated().map { index, bundleID in
            changes[bundleID] ?? app(bundleID, privileged: index == 0)
        }
        return try Suite(manifest: URL(fileURLWithPath: "/suites/contoso/suite.yaml"),
                         registeredRedirectURIs: registeredRedirectURIs, apps: apps)
    }

    static func suite(apps: [SuiteApp]) throws -> Suite {
        try Suite(manifest: URL(fileURLWithPath: "/suites/contoso/suite.yaml"), apps: apps)
    }
}

extension SuiteReport {
    func findings(_ rule: CheckRule) -> [Finding] {
        findings.filter { $0.rule == rule }
    }
}
