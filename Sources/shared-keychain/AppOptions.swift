import ArgumentParser
import Foundation
import SharedKeychain
import SuiteManifest

/// The app a command acts as: explicit identity options, or an app of a suite manifest.
struct AppOptions: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("The app's bundle ID, e.g. com.contoso.mail.", valueName: "bundle-id"))
    var bundleID: String

    @Option(name: .customLong("team"), help: ArgumentHelp("The app's team ID: 10 upper-case letters or digits.", valueName: "team-id"))
    var teamID: String?

    @Option(name: .customLong("entitlements"), help: ArgumentHelp(
        "The app's entitlements.plist (XML or binary); its keychain-access-groups are the groups the app may use.",
        discussion: "Without it the app has only its app ID group, <team>.<bundle-id>.",
        valueName: "plist"))
    var entitlements: String?

    @Option(name: .customLong("suite"), help: ArgumentHelp(
        "A suite manifest (or its directory): the app's team, entitlements and MSAL settings come from its entry for --app.",
        valueName: "file"))
    var suite: String?

    func validate() throws {
        if suite != nil, teamID != nil || entitlements != nil {
            throw ValidationError("give --suite, or --team and --entitlements, not both")
        }
        if suite == nil, teamID == nil {
            throw ValidationError("give --team (and usually --entitlements), or --suite, with --app")
        }
    }

    /// The app's entry in the suite manifest, when `--suite` is given.
    func suiteApp() throws -> SuiteApp? {
        guard let suite else { return nil }
        return try SuiteManifest.load(from: URL(fileURLWithPath: suite)).app(bundleID: bundleID)
    }

    func identity() throws -> AppIdentity {
        if let app = try suiteApp() { return try app.identity() }
        let team = try TeamIdentifier(teamID ?? "")
        guard let entitlements else { return try AppIdentity(bundleID: bundleID, teamID: team) }
        let url = URL(fileURLWithPath: entitlements)
        return try AppIdentity(bundleID: bundleID, teamID: team, entitlements: Entitlements(contentsOf: url), source: url.path)
    }
}
