import ArgumentParser
import TokenCache

struct TokenAcquireCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "acquire",
        abstract: "Get an access token: from the cache, else by refresh token (the app's own or the family's).",
        discussion: "With --silent, no usable refresh token fails with interaction_required; without it, the tool falls back to an emulated interactive sign-in of the same user."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: ArgumentHelp("The account: its home account ID or username.", valueName: "id|username"))
    var account: String

    @Option(parsing: .upToNextOption, help: "The scopes to request.")
    var scopes: [String] = TokenCache.defaultScopes

    @Flag(help: "Never fall back to interactive sign-in.")
    var silent = false

    func execute() throws {
        let result = try tokens.tokenCache(global, app: app).acquireToken(account: account, scopes: scopes, interactive: !silent)
        let view = AuthenticationJSON(result, options: tokens)
        if global.json { Output.printJSON(view) } else { Output.standardOutput.write(view.text) }
    }
}
