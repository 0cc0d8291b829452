import Foundation
import TokenCache

extension ExampleSuite {
    /// The manifest of a generated suite of `apps` apps (at least 1), plists inline, for trying
    /// `suite blast-radius` and `suite check` at the size of a large organisation.
    ///
    /// Every ten apps, in turn: six MSAL apps sharing `com.microsoft.adalcache`, the example's
    /// client ID and family 1; an ADAL app in the same group with that client ID; an MSAL app in
    /// that group with a second client ID; an app with a cache group of its own and the broker;
    /// and one with its own cache group whose entitlements also list the shared group. App `n` is
    /// `Contoso App n`, bundle ID `com.contoso.app<n>`.
    ///
    /// - Parameter apps: How many apps; fewer than 1 is taken as 1.
    public static func generatedManifest(apps: Int) -> String {
        let entries = (1...max(apps, 1)).map(generatedEntry)
        return """
            # A generated suite of \(max(apps, 1)) apps (shared-keychain suite init --apps), for trying
            # `suite blast-radius` and `suite check` at size. Plists are inline.
            name: Contoso (\(max(apps, 1)) apps)

            apps:
            \(entries.joined(separator: "\n"))

            """
    }

    /// Writes ``generatedManifest(apps:)`` as `suite.yaml` into `directory`, creating it as needed.
    ///
    /// - Parameters:
    ///   - apps: How many apps; fewer than 1 is taken as 1.
    ///   - directory: The suite's directory.
    ///   - force: Replace a `suite.yaml` that exists.
    /// - Returns: The manifest written.
    /// - Throws: ``ExampleSuiteError/wouldOverwrite(directory:files:)`` when `suite.yaml` exists,
    ///   unless `force`; ``ExampleSuiteError/writeFailed(file:reason:)`` when writing fails.
    @discardableResult
    public static func writeGenerated(apps: Int, to directory: URL, force: Bool = false) throws(ExampleSuiteError) -> [URL] {
        try write([(manifestName, Data(generatedManifest(apps: apps).utf8))], to: directory, force: force)
    }

    /// The second client ID of a generated suite.
    static let generatedSecondClientID = "0f1e2d3c-4b5a-4697-8877-665544332211"

    private static func generatedEntry(_ number: Int) -> String {
        let bundleID = "com.contoso.app\(number)"
        let shared = SuiteApp.defaultKeychainGroup
        var fields = ["name: Contoso App \(number)", "bundle_id: \(bundleID)", "team_id: \(teamID)"]
        var entitlements = ["$(AppIdentifierPrefix)\(bundleID)", "$(AppIdentifierPrefix)\(shared)"]
        var broker = false
        switch (number - 1) % 10 {
        case 6:
            fields += ["client_id: \(clientID)", "sdk: adal"]
        case 7:
            fields += ["client_id: \(generatedSecondClientID)", "family_id: \"1\""]
        case 8:
            fields += ["client_id: \(clientID)", "keychain_group: \(bundleID)", "family_id: \"1\""]
            entitlements = []
            broker = true
        case 9:
            fields += ["client_id: \(clientID)", "keychain_group: \(bundleID)", "family_id: \"1\""]
        default:
            fields += ["client_id: \(clientID)", "family_id: \"1\""]
        }
        let scheme = RedirectURI.msalScheme(bundleID: bundleID)
        fields += [
            "redirect_uri: \(RedirectURI.msalDefault(bundleID: bundleID))",
            "broker: \(broker)",
            "entitlements: [\(entitlements.map { "\"\($0)\"" }.joined(separator: ", "))]",
            "info_plist:",
            "  CFBundleURLTypes:",
            "    - CFBundleURLSchemes: [\(scheme)]",
            "  LSApplicationQueriesSchemes: [\(broker ? RedirectURI.brokerSchemes.joined(separator: ", ") : "")]",
        ]
        return fields.enumerated().map { ($0 == 0 ? "  - " : "    ") + $1 }.joined(separator: "\n")
    }
}
