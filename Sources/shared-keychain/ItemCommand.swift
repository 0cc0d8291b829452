import ArgumentParser

struct ItemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "item",
        abstract: "Add, read, update, delete and list generic-password items as one app.",
        discussion: """
            Without --group, add uses the app's first access group, and get, update, delete and
            list act on every group the app is entitled to, as Keychain Services does: an
            ungrouped delete removes matches in all of them.
            """,
        subcommands: [ItemAddCommand.self, ItemGetCommand.self, ItemUpdateCommand.self, ItemDeleteCommand.self, ItemListCommand.self]
    )
}
