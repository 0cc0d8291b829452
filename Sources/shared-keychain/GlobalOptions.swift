import ArgumentParser
import Device
import Simulation
import Foundation
import KeychainStorage
import Logging
import SharedKeychain

extension KeyringKind: ExpressibleByArgument {}

/// What every command's options give it, whichever options it takes.
protocol CommandOptions {
    var stateDirectoryURL: URL { get }
    var json: Bool { get }
    var logger: Logger { get }
    /// Range checks, reported as errSecParam (exit 10) before the command does anything.
    func check() throws
}

/// The options every command takes: the device's state directory, JSON, logging.
struct BasicOptions: ParsableArguments, CommandOptions {
    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "The device's state: its apps, lock state and private keyring. Default: $SHARED_KEYCHAIN_STATE_DIR, else $XDG_STATE_HOME/shared-keychain, else ~/.local/state/shared-keychain.",
        valueName: "dir"))
    var stateDirectory: String?

    @Flag(help: "Print JSON instead of text (errors too, on standard error).")
    var json = false

    @Flag(name: .shortAndLong, help: "Log what the tool does to standard error.")
    var verbose = false

    func check() throws {
        if let stateDirectory, stateDirectory.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageFailure(message: "--state-dir is empty; give a directory (it is created, private to you, if it does not exist)")
        }
    }

    var stateDirectoryURL: URL {
        if let stateDirectory { return URL(fileURLWithPath: stateDirectory, isDirectory: true) }
        return Device.defaultStateDirectory()
    }

    var logger: Logger {
        var logger = Logger(label: "shared-keychain") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}

/// The options of commands that use keychain items: the basic ones, and which keyring holds the
/// items. Commands that never touch items (`keyring`, `suite`, `device install`) do not take
/// `--keyring` or `--timeout`.
struct GlobalOptions: ParsableArguments, CommandOptions {
    @OptionGroup var basic: BasicOptions

    @Option(name: .customLong("keyring"), help: "Where items live: private (a gnome-keyring of this tool's own, started on first use), user (the desktop's Secret Service) or memory (this process only).")
    var keyring: KeyringKind = .private

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: ArgumentHelp(
        "Give up on a Secret Service call, or on waiting for a group's lock, after this long: 500ms, 5s, 1m; a bare number is seconds.", valueName: "duration"))
    var timeoutDuration = WrittenDuration(seconds: 5)

    /// `--timeout` in seconds.
    var timeout: Double { timeoutDuration.seconds }
    var stateDirectoryURL: URL { basic.stateDirectoryURL }
    var json: Bool { basic.json }
    var logger: Logger { basic.logger }

    func check() throws {
        try basic.check()
        try InputValidation.check(timeout, "--timeout", in: 0.001...3600, unit: "seconds")
        if keyring == .memory, !json {
            // One process, one store: say so where people look.
            Output.standardError.write("note: --keyring memory keeps items in this process only: they are gone when the command ends\n")
        }
    }

    /// The options a worker process of this command needs to reach the same storage.
    var workerArguments: [String] {
        ["--state-dir", stateDirectoryURL.path, "--keyring", keyring.rawValue, "--timeout", String(timeout)]
    }

    /// This executable, which runs the worker processes of `load` and `scenario run`.
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }
}

extension WrittenDuration: ExpressibleByArgument {
    /// `250ms`, `2s`, `10m`, `2h`, or any number of seconds: a number out of range (`nan`,
    /// `1e308`) is kept, so that the option's range check reports it as errSecParam naming the
    /// option and its range, as for every numeric option.
    /// Spaces, hex (`0x10`, which `Double` would take as 16) and anything else that is not a
    /// plain number with an optional unit is refused, so the option's error names it.
    public init?(argument: String) {
        let plain = argument.allSatisfy { $0.isASCII && ($0.isNumber || ".+-eEmsh".contains($0)) }
        guard plain || ["nan", "inf", "infinity", "-inf", "-infinity"].contains(argument.lowercased()) else { return nil }
        if let parsed = WrittenDuration(parsing: argument) {
            self = parsed
        } else if argument.hasPrefix("-"), let magnitude = WrittenDuration(parsing: String(argument.dropFirst())) {
            // Kept negative, so the range check names the option (`-1` used to read as an option).
            self.init(seconds: -magnitude.seconds)
        } else if let seconds = Double(argument) {
            self.init(seconds: seconds)
        } else {
            return nil
        }
    }

    public var defaultValueDescription: String { description }
}

extension CommandOptions {
    /// The device of the state directory.
    var device: Device { Device(stateDirectory: stateDirectoryURL) }
}

extension GlobalOptions {
    /// Opens the device's keychain in the keyring `--keyring` names, starting the private
    /// keyring when needed, under the mitigation policy `policy` names (else the state
    /// directory's `policy.json`, if any): every app's keychain on it comes from its
    /// ``DeviceSession/keychains``, with the device's lock, authentication answer and policy.
    func session(policy: AuditPolicyOptions? = nil) throws -> DeviceSession {
        try device.session(keyring: keyring, timeout: timeout, logger: logger, policyFile: policy?.file)
    }

    /// The device's store alone, for work done as the device owner rather than an app
    /// (snapshots, restores, audits, hazards, scenarios, which bring their own policies).
    func openStore() throws -> any ItemStore {
        try device.openStore(keyring, timeout: timeout, logger: logger)
    }

    /// The device as hazards and scenarios lock, unlock and reboot it: what `device lock`,
    /// `unlock` and `reboot` do, on the keyring `--keyring` names.
    var deviceControl: KeyringDevice {
        KeyringDevice(device, keyring: keyring, timeout: timeout, logger: logger)
    }
}
