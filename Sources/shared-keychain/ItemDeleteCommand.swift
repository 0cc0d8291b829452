import ArgumentParser
import SharedKeychain

struct ItemDeleteCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every matching item (SecItemDelete); prints how many were deleted.",
        discussion: "With no attribute at all it deletes every item in every group the app may use, as Keychain Services does."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var selection: ItemSelectionOptions
    @OptionGroup var policy: AuditPolicyOptions

    func checkInputs() throws {
        try selection.checkInputs()
    }

    func execute() throws {
        let keychain = try KeychainSession(global).keychain(for: app.identity(global), policy: policy.load(global), adHoc: app.isAdHoc(global))
        let count = try keychain.delete(selection.query)
        if global.json {
            Output.printJSON(["deleted": count])
        } else {
            Output.standardOutput.write("deleted \(count) item\(count == 1 ? "" : "s")\n")
        }
    }
}
