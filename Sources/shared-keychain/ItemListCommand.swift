import ArgumentParser
import Foundation
import SharedKeychain

struct ItemListCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the attributes of the items the app can see, or of those matching the attributes given; never their data."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions

    @OptionGroup var selection: ItemSelectionOptions

    @Option(help: ArgumentHelp("List at most this many, oldest first (a number as kSecMatchLimit).", valueName: "n"))
    var limit: Int?

    func checkInputs() throws {
        try selection.checkInputs()
        if let limit { try InputValidation.check(limit, "--limit", in: 1...1_000_000) }
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let items = try keychain.copyAll(selection.query, limit: limit.map { .count($0) } ?? .all)
        if global.json {
            Output.printJSON(items.map { ItemJSON($0, includeData: false) })
            return
        }
        let rows = items.map { item in
            [item.group, item.account, item.service, item.type.map(String.init) ?? "-", item.accessibility.rawValue,
             item.creator ?? "-", item.modificationDate.formatted(.iso8601)]
        }
        Output.standardOutput.write(
            Table(header: ["GROUP", "ACCOUNT", "SERVICE", "TYPE", "ACCESSIBLE", "CREATOR", "MODIFIED"], rows: rows).rendered)
        Output.standardOutput.write("\(items.count) item\(items.count == 1 ? "" : "s")\n")
    }
}
