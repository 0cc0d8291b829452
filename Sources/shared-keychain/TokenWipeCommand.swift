import ArgumentParser
import TokenCache

struct TokenWipeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe",
        abstract: "Wipe the whole shared group (wipeCacheForAllAccounts): every app's tokens, for every user.",
        discussion: "Nothing stops any entitled app from doing this; the wipe record names who did."
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var app: AppOptions
    @OptionGroup var tokens: TokenOptions
    @OptionGroup var policy: AuditPolicyOptions

    func execute() throws {
        let removed = try tokens.tokenCache(global, app: app, policy: policy.load(global)).wipeCacheForAllAccounts()
        if global.json {
            Output.printJSON(["removed": removed])
        } else {
            Output.standardOutput.write("wiped \(removed) item\(removed == 1 ? "" : "s") from the shared group\n")
        }
    }
}
