import ArgumentParser
import TokenCache

struct TokenSignInCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Interactive sign-in (emulated): writes access, refresh, family refresh and ID tokens, the account and app metadata."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: "The user's sign-in name, e.g. alice@contoso.com.")
    var user: String

    @Option(help: "The tenant: a name, a tenant ID, or common.")
    var tenant: String = "common"

    @Option(parsing: .upToNextOption, help: "The scopes to request.")
    var scopes: [String] = TokenCache.defaultScopes

    func execute() throws {
        let result = try tokens.tokenCache(global, app: app).signIn(username: user, tenant: tenant, scopes: scopes)
        let view = AuthenticationJSON(result, options: tokens)
        if global.json { Output.printJSON(view) } else { Output.standardOutput.write(view.text) }
    }
}
