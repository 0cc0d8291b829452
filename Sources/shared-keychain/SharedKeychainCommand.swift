import ArgumentParser
import Foundation
import SharedKeychain

@main
struct SharedKeychainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-keychain",
        abstract: "Emulates iOS keychain access groups on a real Secret Service (libsecret).",
        discussion: """
            Apps of one team share items through a keychain access group when their \
            keychain-access-groups entitlement names it. Every command acts as one app \
            (--app, --team, --entitlements) with Keychain Services semantics: statuses, \
            primary keys, match limits, and errSecMissingEntitlement (-34018) for a group the \
            app is not entitled to.

            By default items live in a private gnome-keyring that this tool starts on first \
            use in its state directory and reuses until `keyring stop`.

            One convention everywhere: a path is always an option named for what it holds \
            (--suite DIR, --scenario FILE, --input FILE, --output FILE|DIR, --entitlements \
            PLIST); a positional argument names what a command acts on (a bundle ID, a hazard). \
            Durations take units (500ms, 10s, 2m, 1h); a bare number is seconds. Shell \
            completion: shared-keychain --generate-completion-script bash|zsh|fish.
            """,
        version: SharedKeychainCommand.version,
        subcommands: [ItemCommand.self, TokenCommand.self, DeviceCommand.self, CacheCommand.self, SuiteCommand.self, ScenarioCommand.self, HazardCommand.self,
                      AuditCommand.self, SnapshotCommand.self, RestoreCommand.self, KeyringCommand.self, LoadCommand.self, LoadWorkerCommand.self, WatchCommand.self, ScenarioWorkerCommand.self, BrokerServeCommand.self]
    )

    /// The tool's version, as `--version` prints it.
    static let version = "0.14.0"

    /// Refuses arguments that are not valid UTF-8 before parsing: Swift would decode them with
    /// U+FFFD in place of the bad bytes, so two different byte strings would address one item.
    static func main() {
        CommandLineWording.bootstrap()
        if let failure = invalidArgument(in: CommandLine.unsafeArgv, count: Int(CommandLine.argc)) {
            ErrorBody.write(status: .param, message: failure, json: CommandLine.arguments.contains("--json"))
            Foundation.exit(KeychainStatus.param.exitCode)
        }
        main(nil)
    }

    /// A message naming the first argument that is not valid UTF-8, and the option it is the
    /// value of; nil when every argument is valid.
    static func invalidArgument(in argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> String? {
        var previous: String?
        for index in 1..<max(count, 1) {
            guard let pointer = argv[index] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            guard let offset = InputValidation.firstInvalidUTF8Offset(bytes) else {
                previous = String(decoding: bytes, as: UTF8.self)
                continue
            }
            let field = previous.map { $0.hasPrefix("-") ? "the value of \($0)" : "argument \(index)" } ?? "argument \(index)"
            return "\(field) is not valid UTF-8 (bad byte at offset \(offset)); nothing was written"
        }
        return nil
    }
}
