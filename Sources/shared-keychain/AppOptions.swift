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

    /// What the options say of the app: a suite entry (the manifest loaded here, once), an
    /// installed app (`--app` alone), or an app declared by `--team` (and `--entitlements`).
    func request() throws -> AppRequest {
        if let suite { return .suiteEntry(bundleID: bundleID, suite: try SuiteManifest.load(from: URL(fileURLWithPath: suite))) }
        return AppRequest(bundleID: bundleID, team: teamID, entitlements: entitlements.map { URL(fileURLWithPath: $0) })
    }

    /// The app as installed on the device of `global`'s state directory, when it is and
    /// `--suite` is not given.
    func installedApp(_ global: some CommandOptions) throws -> InstalledApp? {
        guard suite == nil else { return nil }
        return try global.device.app(bundleID)
    }

    /// Who the command acts as and what its manifest says, resolved by the device
    /// (``Device/resolve(_:)``); an ad-hoc app is noted on standard error.
    func resolve(_ global: some CommandOptions) throws -> ResolvedApp {
        let resolved = try Self.resolve(request(), on: global.device)
        if resolved.isAdHoc, !global.json {
            // Nothing vouches for an ad-hoc app's bundle ID: say so where people look (JSON
            // runs keep standard error for JSON errors; the audit marks them either way).
            Output.standardError.write(
                "note: \(bundleID) is not installed on this device; acting as an ad-hoc app of team \(resolved.identity.teamID.rawValue) (groups: \(resolved.identity.accessGroupNames.joined(separator: ", ")))\n")
        }
        return resolved
    }

    /// The app's keychain on the device: the store `--keyring` names, under the mitigation
    /// policy `policy` names (else the state directory's), as the device resolves the app.
    func keychain(_ global: GlobalOptions, policy: AuditPolicyOptions? = nil) throws -> Keychain {
        let session = try global.session(policy: policy)
        return session.keychain(for: try resolve(global))
    }

    /// `request` as `device` resolves it; an app named alone that the device does not have is
    /// worded with the options that name one.
    static func resolve(_ request: AppRequest, on device: Device) throws -> ResolvedApp {
        do {
            return try device.resolve(request)
        } catch DeviceError.notInstalled(let bundleID, _) {
            throw UsageFailure(message: """
                \(bundleID) is not installed on this device: install it with `shared-keychain device install --suite DIR`, \
                or act as an ad-hoc app with --team (and --entitlements)
                """)
        }
    }
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

    /// The app the actor is, resolved by the device; nil for the device owner.
    func resolve(_ global: some CommandOptions) throws -> ResolvedApp? {
        guard let bundleID else { return nil }
        let request = AppRequest(bundleID: bundleID, team: teamID, entitlements: entitlements.map { URL(fileURLWithPath: $0) })
        return try AppOptions.resolve(request, on: global.device)
    }

    /// Refuses `group` to an app not entitled to it (errSecMissingEntitlement); the device owner
    /// reaches every group. Returns whether the actor is an app declared ad hoc, for journals.
    func checkReach(_ group: String, _ global: some CommandOptions) throws -> Bool {
        guard let app = try resolve(global) else { return false }
        guard app.identity.hasKeychainEntitlement else { throw KeychainError.noKeychainEntitlement(app: app.bundleID) }
        guard app.identity.isEntitled(to: group) else {
            throw KeychainError.missingEntitlement(group: group, app: app.bundleID, entitled: app.identity.deviceAccessGroupList)
        }
        return app.isAdHoc
    }
}
