import ArgumentParser
import Device
import Foundation
import KeychainStorage
import Logging
import SecretServiceStorage
import SharedKeychain

extension KeyringKind: ExpressibleByArgument {}

/// Options every command takes after its name.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: ArgumentHelp(
        "Where the private keyring keeps its daemon state, password and items.",
        discussion: "Default: $SHARED_KEYCHAIN_STATE_DIR, else $XDG_STATE_HOME/shared-keychain, else ~/.local/state/shared-keychain.",
        valueName: "dir"))
    var stateDirectory: String?

    @Option(name: .customLong("keyring"), help: "Which Secret Service to use: private (default), user or memory.")
    var keyring: KeyringKind = .private

    @Flag(help: "Print JSON instead of text (errors too, on standard error).")
    var json = false

    @Option(help: ArgumentHelp("Give up on a Secret Service call after this many seconds.", valueName: "seconds"))
    var timeout: Double = 5

    @Flag(name: .shortAndLong, help: "Log what the tool does to standard error.")
    var verbose = false

    /// Range checks, reported as errSecParam (exit 10) before the command does anything.
    func check() throws {
        try InputValidation.check(timeout, "--timeout", in: 0.001...3600, unit: "seconds")
        if let stateDirectory, stateDirectory.trimmingCharacters(in: .whitespaces).isEmpty {
            throw UsageFailure(message: "--state-dir is empty; give a directory (it is created, private to you, if it does not exist)")
        }
    }

    var stateDirectoryURL: URL {
        if let stateDirectory { return URL(fileURLWithPath: stateDirectory, isDirectory: true) }
        return Device.defaultStateDirectory()
    }

    /// The options a worker process of this command needs to reach the same storage.
    var workerArguments: [String] {
        ["--state-dir", stateDirectoryURL.path, "--keyring", keyring.rawValue, "--timeout", String(timeout)]
    }

    /// This executable, which runs the worker processes of `load` and `scenario run`.
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    var logger: Logger {
        var logger = Logger(label: "shared-keychain") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}

/// Opens the storage `--keyring` names, starting the private keyring when needed.
struct KeychainSession {
    let store: any ItemStore

    init(_ global: GlobalOptions) throws {
        store = try Device(stateDirectory: global.stateDirectoryURL).openStore(global.keyring, timeout: global.timeout, logger: global.logger)
    }

    static func privateKeyring(_ global: GlobalOptions) -> PrivateKeyring {
        Device(stateDirectory: global.stateDirectoryURL).privateKeyring(logger: global.logger)
    }

    func keychain(for app: AppIdentity) -> Keychain {
        Keychain(app: app, store: store)
    }
}
