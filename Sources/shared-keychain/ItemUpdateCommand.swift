import ArgumentParser
import SharedKeychain

struct ItemUpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change every matching item (SecItemUpdate): its data, any attribute, or both; prints how many changed.",
        discussion: """
            --account, --service, --label and the other plain names select the items; --new-label,
            --new-comment and the other --new-* options set attributes, and --data, --data-file
            or --stdin the data. With nothing to set nothing is changed (errSecParam). --if-version
            V makes the update a compare-and-swap: it applies only if every matching item is still
            at version V (see `item get --json`), else it fails with errSKVersionConflict (-99001,
            exit 18) and changes nothing.
            """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var changes: ItemChangeOptions
    @OptionGroup var input: DataOptions

    @Option(name: .customLong("if-version"), help: ArgumentHelp(
        "Update only if the item is still at this version (compare-and-swap).", valueName: "version"))
    var ifVersion: UInt64?

    func checkInputs() throws {
        try selection.checkInputs()
        try changes.checkInputs()
    }

    func execute() throws {
        let change = changes.change(data: try input.read(), ifVersion: ifVersion)
        guard !change.isEmpty else {
            throw UsageFailure(message: "nothing to update: give new data (--data TEXT, --data-file FILE or --stdin) or an attribute to set (--new-label, --new-comment, ...)")
        }
        if let ifVersion { try InputValidation.check(ifVersion, "--if-version", in: 1...UInt64.max) }
        let keychain = try KeychainSession(global).keychain(for: app.identity(global))
        let count = try keychain.update(selection.query, with: change)
        if global.json {
            Output.printJSON(["updated": count])
        } else {
            Output.standardOutput.write("updated \(count) item\(count == 1 ? "" : "s")\n")
        }
    }
}
