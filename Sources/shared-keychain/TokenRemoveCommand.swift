import ArgumentParser
import TokenCache

struct TokenRemoveCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an account as MSAL does: this client's tokens for it (which may be the family refresh token siblings rely on).",
        discussion: "With --wipe-account: every app's tokens for that user, and the account items."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions
    @OptionGroup var policy: AuditPolicyOptions

    @Option(help: ArgumentHelp("The account: its home account ID or username.", valueName: "id|username"))
    var account: String

    @Flag(name: .customLong("wipe-account"), help: "Remove every app's tokens for the user, not only this client's.")
    var wipeAccount = false

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app, policy: policy.load(global))
        let removed = wipeAccount ? try cache.wipeAccount(account) : try cache.remove(account: account)
        if global.json {
            Output.printJSON(["removed": removed])
        } else {
            Output.standardOutput.write("removed \(removed) item\(removed == 1 ? "" : "s") for \(account)\n")
        }
    }
}
