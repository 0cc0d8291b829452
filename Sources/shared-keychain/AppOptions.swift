import ArgumentParser
import Device
import Foundation
import SharedKeychain
import SuiteManifest

/// The app a command acts as: an app installed on the device (`--app` alone), an app of a suite
/// manifest (`--suite`), or an ad-hoc app declared on the spot (`--team`, `--entitlements`).
struct AppOptions: ParsableArguments {
    @Option(name: .customLong("app"), help: ArgumentHelp(
        "The app's bundle ID, e.g. com.contoso.mail. An app installed on the device (`device install`) needs nothing else.",
        valueName: "bundle-id"))
    var bundleID: String

    @Option(name: .customLong("team"), help: ArgumentHelp(
        "An ad-hoc app's team ID: 10 upper-case letters or digits. For an installed app it must match.", valueName: "team-id"))
    var teamID: String?

    @Option(name: .customLong("entitlements"), help: ArgumentHelp(
        "An ad-hoc app's entitlements.plist (XML or binary): its keychain-access-groups and application-groups are the groups the app may use. Without it the app has only its app ID group, <team>.<bundle-id>. For an installed app it must declare the installed groups.",
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
    }

    /// The app's entry in the suite manifest, when `--suite` is given.
    func suiteApp() throws -> SuiteApp? {
        guard let suite else { return nil }
        return try SuiteManifest.load(from: URL(fileURLWithPath: suite)).app(bundleID: bundleID)
    }

    /// The app as installed on the device of `global`'s state directory, when it is.
    func installedApp(_ global: some CommandOptions) throws -> InstalledApp? {
        guard suite == nil else { return nil }
        return try Device(stateDirectory: global.stateDirectoryURL).app(bundleID)
    }

    /// Who the command acts as and what its manifest says, resolved in one place: a suite app
    /// from its entry (`--suite`), an installed app from what the device kept at install (its
    /// identity and every setting of its manifest entry), or an ad-hoc app with no manifest.
    /// Options that declare another identity for an installed app are refused, since an app's
    /// entitlements are fixed when it is signed.
    func resolve(_ global: some CommandOptions) throws -> ResolvedApp {
        if let app = try suiteApp() { return ResolvedApp(identity: try app.identity(), settings: app.settings, installed: nil) }
        let installed = try installedApp(global)
        let identity = try Self.identity(of: bundleID, team: teamID, entitlements: entitlements, installed: installed)
        if installed == nil, !global.json {
            // Nothing vouches for an ad-hoc app's bundle ID: say so where people look (JSON
            // runs keep standard error for JSON errors; the audit marks them either way).
            Output.standardError.write(
                "note: \(bundleID) is not installed on this device; acting as an ad-hoc app of team \(identity.teamID.rawValue) (groups: \(identity.accessGroupNames.joined(separator: ", ")))\n")
        }
        return ResolvedApp(identity: identity, settings: installed?.settings, installed: installed)
    }

    /// Who the command acts as (``resolve(_:)``).
    func identity(_ global: some CommandOptions) throws -> AppIdentity {
        try resolve(global).identity
    }

    /// Whether the command acts as an app declared on the spot rather than installed.
    func isAdHoc(_ global: some CommandOptions) throws -> Bool {
        try suiteApp() == nil && installedApp(global) == nil
    }

    /// `bundleID` as installed, or declared ad hoc by `team` and `entitlements`; a declaration
    /// that differs from the installed identity is refused.
    static func identity(of bundleID: String, team teamID: String?, entitlements: String?, installed: InstalledApp?) throws -> AppIdentity {
        guard let teamID else {
            guard let installed else {
                throw UsageFailure(message: """
                    \(bundleID) is not installed on this device: install it with `shared-keychain device install --suite DIR`, \
                    or act as an ad-hoc app with --team (and --entitlements)
                    """)
            }
            return installed.identity
        }
        let team = try TeamIdentifier(teamID)
        let declared: AppIdentity
        if let entitlements {
            let url = URL(fileURLWithPath: entitlements)
            declared = try AppIdentity(bundleID: bundleID, teamID: team, entitlements: Entitlements(contentsOf: url), source: url.path)
        } else {
            declared = try AppIdentity(bundleID: bundleID, teamID: team)
        }
        if let installed, installed.identity.teamID != team || installed.identity.accessGroupNames != declared.accessGroupNames {
            throw DeviceError.identityMismatch(
                bundleID: bundleID, installed: installed.identity.accessGroupNames, declared: declared.accessGroupNames)
        }
        return declared
    }
}

/// The app a command acts as (``AppOptions/resolve(_:)``).
struct ResolvedApp {
    let identity: AppIdentity
    /// What its manifest says: the suite's entry, or what the device kept; nil for an ad-hoc app.
    let settings: AppSettings?
    /// The app as installed on the device, when it is and `--suite` was not given.
    let installed: InstalledApp?

    /// Declared on the spot: neither in a suite given nor installed.
    var isAdHoc: Bool { settings == nil }
}

/// Who runs a device-owner operation (`snapshot`, `restore`, `audit`): an app, which reaches only
/// its own groups, or the device owner with `--admin`. Either way the journal names them.
struct ActorOptions: ParsableArguments {
    @Flag(help: "Act as the device owner, who reaches every group.")
    var admin = false

    @Option(name: .customLong("app"), help: ArgumentHelp(
        "Act as this app (installed, or ad hoc with --team): only its own groups.", valueName: "bundle-id"))
    var bundleID: String?

    @Option(name: .customLong("team"), help: ArgumentHelp("An ad-hoc app's team ID.", valueName: "team-id"))
    var teamID: String?

    @Option(name: .customLong("entitlements"), help: ArgumentHelp("An ad-hoc app's entitlements.plist.", valueName: "plist"))
    var entitlements: String?

    func validate() throws {
        guard admin != (bundleID != nil) else {
            throw ValidationError("act as an app (--app BUNDLE_ID) or as the device owner (--admin): one of them")
        }
        if admin, teamID != nil || entitlements != nil {
            throw ValidationError("--team and --entitlements describe an app; --admin acts as the device owner")
        }
    }

    /// The name journals record: the app's bundle ID, or `device-owner`.
    var name: String { bundleID ?? "device-owner" }

    /// Whether the actor is an app declared ad hoc (not installed on the device).
    func isAdHoc(_ global: some CommandOptions) throws -> Bool {
        guard let bundleID else { return false }
        return try Device(stateDirectory: global.stateDirectoryURL).app(bundleID) == nil
    }

    /// Refuses `group` to an app not entitled to it (errSecMissingEntitlement); the device owner
    /// reaches every group.
    func checkReach(_ group: String, _ global: GlobalOptions) throws {
        guard let bundleID else { return }
        let identity = try AppOptions.identity(
            of: bundleID, team: teamID, entitlements: entitlements,
            installed: Device(stateDirectory: global.stateDirectoryURL).app(bundleID))
        guard identity.isEntitled(to: group) else {
            throw KeychainError.missingEntitlement(group: group, app: bundleID, entitled: identity.accessGroupNames)
        }
    }
}
