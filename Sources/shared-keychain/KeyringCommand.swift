import ArgumentParser

struct KeyringCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyring",
        abstract: "Start, stop and inspect the private keyring (a gnome-keyring on a private D-Bus bus).",
        discussion: """
            Item commands start the private keyring on first use; it keeps running, so items
            persist between commands like a device's keychain, until `keyring stop`. Its items
            live in the state directory and survive a stop and a restart.
            """,
        subcommands: [KeyringStartCommand.self, KeyringStopCommand.self, KeyringStatusCommand.self]
    )
}
