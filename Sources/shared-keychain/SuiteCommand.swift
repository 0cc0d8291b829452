import ArgumentParser

struct SuiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "Write and check suite manifests: the apps that share sign-in through one keychain group.",
        discussion: """
            A suite manifest (YAML or JSON, or a directory holding suite.yaml) declares each app: \
            bundle ID, team, client ID, redirect URI, keychain sharing group, broker use, and its \
            entitlements and Info.plist (paths to real plists, or inline). `suite init` writes an \
            example; `suite check` applies the rules for cross-app sign-in to it.
            """,
        subcommands: [SuiteInitCommand.self, SuiteCheckCommand.self]
    )
}
