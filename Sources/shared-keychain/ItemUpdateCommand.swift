import ArgumentParser
import SharedKeychain

struct ItemUpdateCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Replace the data of every matching item (SecItemUpdate); prints how many changed."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var input: DataOptions

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity())
        let count = try keychain.update(selection.query, with: ItemChange(data: input.read()))
        if global.json {
            Output.printJSON(["updated": count])
        } else {
            Output.standardOutput.write("updated \(count) item\(count == 1 ? "" : "s")\n")
        }
    }
}
