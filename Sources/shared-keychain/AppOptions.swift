import ArgumentParser
import Foundation
import SharedKeychain

/// The app a command acts as.
struct AppOptions: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp("The app's bundle ID, e.g. com.contoso.mail.", valueName: "bundle-id"))
    var bundleID: String

    @Option(name: .customLong("team"), help: ArgumentHelp("The app's team ID: 10 upper-case letters or digits.", valueName: "team-id"))
    var teamID: String

    @Option(name: .customLong("entitlements"), help: ArgumentHelp(
        "The app's entitlements.plist (XML or binary); its keychain-access-groups are the groups the app may use.",
        discussion: "Without it the app has only its app ID group, <team>.<bundle-id>.",
        valueName: "plist"))
    var entitlements: String?

    func identity() throws -> AppIdentity {
        let team = try TeamIdentifier(teamID)
        guard let entitlements else { return try AppIdentity(bundleID: bundleID, teamID: team) }
        let url = URL(fileURLWithPath: entitlements)
        return try AppIdentity(bundleID: bundleID, teamID: team, entitlements: Entitlements(contentsOf: url), source: url.path)
    }
}
