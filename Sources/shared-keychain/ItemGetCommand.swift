import ArgumentParser
import Foundation
import SharedKeychain

struct ItemGetCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the data of the first matching item, or of all with --all (SecItemCopyMatching).",
        discussion: "Text output is the raw data (binary safe). With --json: an object, or an array with --all, holding the attributes and the data."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions

    @Flag(help: "Return every match (kSecMatchLimitAll) instead of the first.")
    var all = false

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let items = try keychain.copyMatching(selection.query, limit: all ? .all : .one)
        if global.json {
            let views = items.map { ItemJSON($0, includeData: true) }
            if all { Output.printJSON(views) } else { Output.printJSON(views[0]) }
            return
        }
        for item in items {
            Output.standardOutput.write(item.data)
            if all || Output.standardOutputIsTerminal { Output.standardOutput.write("\n") }
        }
    }
}
