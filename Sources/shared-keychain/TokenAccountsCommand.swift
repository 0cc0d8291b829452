import ArgumentParser
import TokenCache

struct TokenAccountsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts this app sees in the shared group (MSAL's allAccounts).",
        discussion: "An account shows when a refresh token for it belongs to this client or to its family, unless this client signed it out."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    func execute() throws {
        let accounts = try tokens.tokenCache(global, app: app).accounts()
        if global.json {
            Output.printJSON(accounts)
            return
        }
        let rows = accounts.map { [$0.username, $0.homeAccountID, $0.environment, $0.authorityType.rawValue] }
        Output.standardOutput.write(Table(header: ["USERNAME", "HOME ACCOUNT ID", "ENVIRONMENT", "AUTHORITY"], rows: rows).rendered)
        Output.standardOutput.write("\(accounts.count) account\(accounts.count == 1 ? "" : "s")\n")
    }
}
