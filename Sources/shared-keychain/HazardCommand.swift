import ArgumentParser
import Hazards
import Mitigations

struct HazardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hazard",
        abstract: "Run the built-in hazard scenarios of a shared keychain group, with and without mitigations.",
        discussion: """
            Each hazard runs in this process with simulated apps of a made-up team sharing the
            store --keyring names (the private keyring by default, or memory), once as Keychain
            Services behaves and once with mitigations, and reports what each app lost and who
            caused it. The run's items are deleted afterwards. No token is ever printed.
            """,
        subcommands: [HazardListCommand.self, HazardRunCommand.self]
    )
}

extension Hazard: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }

    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}
