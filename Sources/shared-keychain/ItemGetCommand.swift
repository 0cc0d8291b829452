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

    @Option(help: ArgumentHelp("Return at most this many matches (a number as kSecMatchLimit), oldest first.", valueName: "n"))
    var limit: Int?

    @Flag(help: "Print every attribute as JSON, without the data (kSecReturnAttributes alone).")
    var attributes = false

    func validate() throws {
        if all, limit != nil { throw ValidationError("give --all or --limit, not both") }
    }

    func checkInputs() throws {
        try selection.checkInputs()
        if let limit { try InputValidation.check(limit, "--limit", in: 1...1_000_000) }
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let matchLimit: MatchLimit = all ? .all : limit.map { .count($0) } ?? .one
        let items = try keychain.copyMatching(selection.query, limit: matchLimit)
        // One object for the first match; an array when more may come back.
        let many = matchLimit != .one
        if global.json || attributes {
            let views = items.map { ItemJSON($0, includeData: !attributes) }
            if many { Output.printJSON(views) } else { Output.printJSON(views[0]) }
            return
        }
        for item in items {
            Output.standardOutput.write(item.data)
            if many || Output.standardOutputIsTerminal { Output.standardOutput.write("\n") }
        }
    }
}
