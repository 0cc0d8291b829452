import ArgumentParser
import Device
import Foundation
import SuiteManifest

struct SuiteIntuneCheckCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "intune-check",
        abstract: "Look up a user's token where the Intune App SDK of a suite app looks for it, on this device.",
        discussion: """
            The Intune App SDK enrols a user with the token MSAL cached, read from \
            com.microsoft.adalcache, or from the group ADALCacheKeychainGroupOverride names in \
            the app's IntuneMAMSettings (Info.plist). This command reads that group as the app \
            (its entitlements, client ID and family from the manifest) and says whether the \
            user's account and a usable refresh token are there. An app has Intune when its \
            Info.plist (inline or a file) has IntuneMAMSettings, or its manifest entry says \
            intune: true (then the SDK reads com.microsoft.adalcache). `suite check` reports, \
            without a device, an app whose cache is not where its Intune reads \
            (intune-cache-group); `suite blast-radius` lists the apps that can delete the token \
            Intune reads.

            --json prints {app, username, group, overridden, found, status, code, \
            home_account_id, message}.

            Exit status: 0 when the token is found; 11 (errSecItemNotFound) when the group holds \
            no usable token for the user; 13 (errSecMissingEntitlement, -34018) when the app is \
            not entitled to the group Intune reads, as on a device; 10 (errSecParam) when the \
            manifest cannot be read or the app has no Intune.
            """
    )

    @Option(name: .customLong("suite"), help: ArgumentHelp(
        "The manifest: a YAML or JSON file, or a directory holding suite.yaml.", valueName: "path"))
    var suitePath = "suite"

    @Option(name: .customLong("app"), help: ArgumentHelp("The bundle ID of the suite app whose Intune reads.", valueName: "bundle-id"))
    var bundleID: String

    @Option(name: .customLong("user"), help: ArgumentHelp("The user being enrolled (username, e.g. alice@contoso.com).", valueName: "username"))
    var username: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let suite = try SuiteManifest.load(from: URL(fileURLWithPath: suitePath))
        let entry = try suite.app(bundleID: bundleID)
        guard let intune = entry.intune else {
            throw UsageFailure(message: """
                \(bundleID) has no Intune: its Info.plist has no \(IntuneSettings.settingsKey) and its manifest entry does not say \
                intune: true
                """)
        }
        let resolved = try AppOptions.resolve(.suiteEntry(bundleID: entry.bundleID, suite: suite), on: global.device)
        let keychain = try global.session().keychain(for: resolved)
        let lookup = try IntuneTokenReader.lookUp(
            username: username, intune: intune, keychain: keychain, configuration: entry.settings.tokenCacheConfiguration())
        Output.print(lookup, json: global.json)
        if lookup.status != .success { throw ExitCode(lookup.status.exitCode) }
    }
}
