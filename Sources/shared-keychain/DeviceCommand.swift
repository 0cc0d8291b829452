import ArgumentParser
import Device
import Foundation
import Hazards
import KeychainStorage
import SharedKeychain
import SuiteManifest

struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "The device the state directory stands for: its apps, the broker, and its lock. An installed app's identity (bundle ID, team, keychain groups, app groups) is fixed when it is installed, as when an iOS app is signed: commands act as it with --app alone, and refuse --team or --entitlements that declare anything else.",
        subcommands: [
            DeviceInstallCommand.self, DeviceAppsCommand.self, DeviceUninstallCommand.self,
            DeviceLockCommand.self, DeviceUnlockCommand.self, DeviceRebootCommand.self, DeviceStatusCommand.self, DeviceAuthenticationCommand.self,
            DeviceInstallBrokerCommand.self, DeviceLaunchCommand.self,
            DeviceFaultCommand.self,
        ]
    )
}

struct DeviceInstallCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Install every app of a suite from its manifest and plists; a suite that fails `suite check` is refused whole."
    )

    @Option(help: ArgumentHelp("The suite manifest, or its directory.", valueName: "dir"))
    var suite: String

    @Flag(help: ArgumentHelp(
        "Install even when `suite check` finds errors, as a device installs whatever was signed: to reproduce a signed build's entitlements as they are (a dump with 'TEAM.*', or none at all), whose keychain calls then fail as on the device. The errors are printed as warnings."))
    var allowCheckErrors = false

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let loaded = try SuiteManifest.load(from: URL(fileURLWithPath: suite))
        if allowCheckErrors {
            for finding in SuiteChecker.check(loaded).findings where finding.severity == .error {
                Output.standardError.write("warning: installing despite: \(finding.message)\n")
            }
        }
        let installed = try global.device.install(loaded, allowingCheckErrors: allowCheckErrors)
        if global.json {
            Output.printJSON(installed)
        } else {
            for app in installed {
                let groups = app.identity.hasKeychainEntitlement
                    ? app.identity.accessGroupNames.joined(separator: ", ")
                    : "no keychain entitlement (every keychain call is errSecMissingEntitlement, -34018)"
                Output.standardOutput.write("installed \(app.bundleID): \(groups)\n")
            }
        }
    }
}

struct DeviceAppsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(commandName: "apps", abstract: "List the installed apps and their access groups.")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let apps = try global.device.apps()
        if global.json {
            Output.printJSON(apps)
            return
        }
        let rows = apps.map { app in
            [app.bundleID, app.identity.teamID.rawValue, app.clientID, app.identity.accessGroupNames.joined(separator: ",")]
        }
        Output.standardOutput.write(TextTable(header: ["APP", "TEAM", "CLIENT ID", "ACCESS GROUPS"], rows: rows).rendered)
        Output.standardOutput.write("\(apps.count.counted("app")) installed\n")
    }
}

struct DeviceUninstallCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove an app from the device; its keychain items stay, as on iOS.")

    @Argument(help: ArgumentHelp("The app's bundle ID.", valueName: "bundle-id"))
    var bundleID: String

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        try global.device.uninstall(bundleID)
        if global.json {
            Output.printJSON(["uninstalled": bundleID])
        } else {
            Output.standardOutput.write("uninstalled \(bundleID); its keychain items stay\n")
        }
    }
}

/// Prints the lock state (and the authentication answer) as `device status` shows it.
private func printLockState(_ state: DeviceLockState, _ global: some CommandOptions, action: String? = nil) throws {
    let authentication = try global.device.authenticationDecision()
    if global.json {
        Output.printJSON(DeviceStatusJSON(state, authentication: authentication))
        return
    }
    if let action { Output.standardOutput.write(action + "\n") }
    let locked = ProtectionClass.allCases.filter { !state.allows($0) }.map { class_ -> String in
        switch class_ {
        case .untilUnlocked: "whenUnlocked*, whenPasscodeSet*"
        case .untilFirstUnlock: "afterFirstUnlock*"
        case .none: "always*"
        }
    }
    Output.standardOutput.write(
        "device: \(state.locked ? "locked" : "unlocked"), \(state.unlockedSinceBoot ? "unlocked since boot" : "not unlocked since boot")\n"
            + "items out of reach: \(locked.isEmpty ? "none" : locked.joined(separator: "; "))\n"
            + protectedDataLines(state)
            + "authentication: \(authentication.rawValue) (items whose access control asks the user: \(authentication.outcome))\n")
}

/// `protected data: unavailable (...)` and one line per accessibility class.
private func protectedDataLines(_ state: DeviceLockState) -> String {
    let summary = state.isProtectedDataAvailable
        ? "available (isProtectedDataAvailable true; `device lock` posts protectedDataWillBecomeUnavailable)"
        : "unavailable (isProtectedDataAvailable false; `device unlock` posts protectedDataDidBecomeAvailable)"
    let classes = state.protectedDataAvailability.map { entry in
        "  \(entry.accessibility.rawValue): \(entry.available ? "available" : "unavailable, \(entry.reason ?? "")")\n"
    }
    return "protected data: \(summary)\n" + classes.joined()
}

extension AuthenticationDecision: ExpressibleByArgument {
    /// What using an item whose access control asks the user gives, for people.
    var outcome: String {
        switch self {
        case .allow: "used as after a successful prompt"
        case .deny: "errSecAuthFailed (-25293)"
        case .cancel: "errSecUserCanceled (-128)"
        }
    }
}

private struct DeviceStatusJSON: Encodable {
    let locked: Bool
    let unlockedSinceBoot: Bool
    let inaccessibleClasses: [String]
    let authentication: AuthenticationDecision
    /// `isProtectedDataAvailable`.
    let protectedDataAvailable: Bool
    /// Every accessibility class: whether it is available, and why not.
    let protectedData: [ProtectedDataAvailability]

    init(_ state: DeviceLockState, authentication: AuthenticationDecision) {
        self.authentication = authentication
        locked = state.locked
        unlockedSinceBoot = state.unlockedSinceBoot
        inaccessibleClasses = Accessibility.allCases.filter { !state.allows($0.protection) }.map(\.rawValue)
        protectedDataAvailable = state.isProtectedDataAvailable
        protectedData = state.protectedDataAvailability
    }
}

struct DeviceLockCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the device: whenUnlocked and whenPasscodeSet items fail with errSecInteractionNotAllowed (-25308) until `device unlock`.",
        discussion: "On the private keyring their collections are locked in gnome-keyring itself, so no other client (secret-tool included) can read them either. afterFirstUnlock and always items stay usable.")

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let state = try global.device.lock(keyring: global.keyring, timeout: global.timeout, logger: global.logger)
        try printLockState(state, global, action: "locked the device")
    }
}

struct DeviceUnlockCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the device (as with its passcode): every item is usable again, and afterFirstUnlock items stay so until the next reboot.")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        try printLockState(try global.device.unlock(), global, action: "unlocked the device")
    }
}

struct DeviceRebootCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "reboot",
        abstract: "Reboot the device: it comes back locked and not unlocked since boot, so afterFirstUnlock items are out of reach too until `device unlock`.")

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let state = try global.device.reboot(keyring: global.keyring, timeout: global.timeout, logger: global.logger)
        try printLockState(state, global, action: "rebooted the device")
    }
}

struct DeviceStatusCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show whether the device is locked, unlocked since boot, which items are out of reach, and whether protected data is available per accessibility class.")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        try printLockState(try global.device.lockState(), global)
    }
}

struct DeviceAuthenticationCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "authentication",
        abstract: "Set what the device answers when an item's access control asks the user (presence, biometry, passcode): allow (default), deny or cancel.",
        discussion: "Reading such an item's data, or updating it, then succeeds (allow), fails with errSecAuthFailed -25293 (deny) or errSecUserCanceled -128 (cancel), as if the user authenticated, failed, or canceled the prompt. Deleting never asks. Kept in <state>/device/authentication.json for every process.")

    @Argument(help: ArgumentHelp("allow, deny or cancel.", valueName: "answer"))
    var decision: AuthenticationDecision

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let device = global.device
        try device.setAuthenticationDecision(decision)
        try printLockState(try device.lockState(), global, action: "the device answers authentication prompts with '\(decision.rawValue)'")
    }
}

struct DeviceInstallBrokerCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "install-broker",
        abstract: "Install the broker (Microsoft Authenticator) with its own keychain group, which no suite app can reach (-34018).",
        discussion: "Apps set up for it (msauthv2 in LSApplicationQueriesSchemes, the msauth.<bundle id> URL scheme) then sign in through it with `token acquire` (--webview auto or broker).")

    @OptionGroup(title: "Output") var global: BasicOptions

    func execute() throws {
        let broker = try global.device.installBroker()
        if global.json {
            Output.printJSON(broker)
        } else {
            Output.standardOutput.write("installed the broker \(broker.bundleID): \(broker.identity.accessGroupNames.joined(separator: ", "))\n")
        }
    }
}
