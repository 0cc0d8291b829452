import ArgumentParser
import SharedKeychain

struct ItemUpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Replace the data of every matching item (SecItemUpdate); prints how many changed.",
        discussion: """
            The new data comes only from --data, --data-file or --stdin; without one nothing is
            changed (errSecParam). --if-version V makes the update a compare-and-swap: it applies
            only if every matching item is still at version V (see `item get --json`), else it
            fails with errSKVersionConflict (-99001, exit 18) and changes nothing.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var input: DataOptions

    @Option(name: .customLong("if-version"), help: ArgumentHelp(
        "Update only if the item is still at this version (compare-and-swap).", valueName: "version"))
    var ifVersion: UInt64?

    func checkInputs() throws {
        try selection.checkInputs()
    }

    func execute() throws {
        guard let data = try input.read() else {
            throw UsageFailure(message: "nothing to update: give the new data with --data TEXT, --data-file FILE or --stdin")
        }
        if let ifVersion { try InputValidation.check(ifVersion, "--if-version", in: 1...UInt64.max) }
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let count = try keychain.update(selection.query, with: ItemChange(data: data, ifVersion: ifVersion))
        if global.json {
            Output.printJSON(["updated": count])
        } else {
            Output.standardOutput.write("updated \(count) item\(count == 1 ? "" : "s")\n")
        }
    }
}
