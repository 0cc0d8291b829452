import ArgumentParser
import Device
import Foundation
import SuiteManifest

struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "The device the state directory stands for: install, list and uninstall apps.",
        discussion: "An installed app's identity (bundle ID, team, keychain groups, app groups) is fixed when it is installed, as when an iOS app is signed: commands act as it with --app alone, and refuse --team or --entitlements that declare anything else.",
        subcommands: [DeviceInstallCommand.self, DeviceAppsCommand.self, DeviceUninstallCommand.self]
    )
}

struct DeviceInstallCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install every app of a suite from its manifest and plists; a suite that fails `suite check` is refused whole."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp("The suite manifest, or its directory.", valueName: "dir"))
    var suite: String

    func execute() throws {
        let loaded = try SuiteManifest.load(from: URL(fileURLWithPath: suite))
        let installed = try Device(stateDirectory: global.stateDirectoryURL).install(loaded)
        if global.json {
            Output.printJSON(installed)
        } else {
            for app in installed {
                Output.standardOutput.write("installed \(app.bundleID): \(app.identity.accessGroupNames.joined(separator: ", "))\n")
            }
        }
    }
}

struct DeviceAppsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "apps", abstract: "List the installed apps and their access groups.")

    @OptionGroup var global: GlobalOptions

    func execute() throws {
        let apps = try Device(stateDirectory: global.stateDirectoryURL).apps()
        if global.json {
            Output.printJSON(apps)
            return
        }
        let rows = apps.map { app in
            [app.bundleID, app.identity.teamID.rawValue, app.clientID, app.identity.accessGroupNames.joined(separator: ",")]
        }
        Output.standardOutput.write(Table(header: ["APP", "TEAM", "CLIENT ID", "ACCESS GROUPS"], rows: rows).rendered)
        Output.standardOutput.write("\(apps.count) app\(apps.count == 1 ? "" : "s") installed\n")
    }
}

struct DeviceUninstallCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove an app from the device; its keychain items stay, as on iOS.")

    @OptionGroup var global: GlobalOptions

    @Argument(help: ArgumentHelp("The app's bundle ID.", valueName: "bundle-id"))
    var bundleID: String

    func execute() throws {
        try Device(stateDirectory: global.stateDirectoryURL).uninstall(bundleID)
        if global.json {
            Output.printJSON(["uninstalled": bundleID])
        } else {
            Output.standardOutput.write("uninstalled \(bundleID); its keychain items stay\n")
        }
    }
}
