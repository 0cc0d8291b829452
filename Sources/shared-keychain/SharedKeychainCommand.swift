import ArgumentParser

@main
struct SharedKeychainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shared-keychain",
        abstract: "Emulates iOS keychain access groups on a real Secret Service (libsecret).",
        discussion: """
            Apps of one team share items through a keychain access group when their
            keychain-access-groups entitlement names it. Every command acts as one app
            (--app, --team, --entitlements) with Keychain Services semantics: statuses,
            primary keys, match limits, and errSecMissingEntitlement (-34018) for a group the
            app is not entitled to.

            By default items live in a private gnome-keyring that this tool starts on first
            use in its state directory and reuses until `keyring stop`.
            """,
        subcommands: [ItemCommand.self, TokenCommand.self, CacheCommand.self, SuiteCommand.self, ScenarioCommand.self, HazardCommand.self,
                      AuditCommand.self, SnapshotCommand.self, RestoreCommand.self, KeyringCommand.self, LoadCommand.self, LoadWorkerCommand.self, WatchCommand.self, ScenarioWorkerCommand.self]
    )
}
