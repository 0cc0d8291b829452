import ArgumentParser
import Device
import TokenCache

/// MSAL's webview choice for an interactive acquisition.
enum WebviewType: String, ExpressibleByArgument, CaseIterable {
    /// The broker when it is installed and the app is set up for it, else embedded.
    case auto
    /// The app's own (emulated) sign-in; never the broker.
    case embedded
    /// The broker, or an error saying why it cannot be used.
    case broker
}

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

    @Option(help: ArgumentHelp(
        "Where an interactive sign-in happens: auto (the broker when installed and the app is set up for it, else embedded), embedded, or broker.",
        valueName: "type"))
    var webview: WebviewType = .auto

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp(
        "The redirect URI the broker request presents. Default: msauth.<bundle id>://auth. Another app's URI is how spoofing is tried: the broker refuses it.",
        valueName: "uri"))
    var redirectURI: String?

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        let result: AuthenticationResult
        var brokerPrompted: Bool?
        do {
            result = try cache.acquireToken(account: account, scopes: scopes, interactive: false)
        } catch {
            guard case .interactionRequired = error, !silent else { throw error }
            if let caller = try brokerCaller() {
                let request = try cache.brokerRequest(
                    loginHint: account, scopes: scopes, redirectURI: redirectURI ?? "msauth.\(caller)://auth")
                let answer = try TokenOptions.callBroker(request, caller: caller, global)
                result = try cache.acceptBrokerResponse(answer.url, to: request)
                brokerPrompted = answer.prompted
            } else {
                result = try cache.acquireToken(account: account, scopes: scopes, interactive: true)
            }
        }
        var view = AuthenticationJSON(result, options: tokens)
        view.brokerPrompted = brokerPrompted
        if global.json { Output.printJSON(view) } else { Output.standardOutput.write(view.text) }
    }

    /// The installed app to send to the broker, or nil for an embedded sign-in.
    private func brokerCaller() throws -> String? {
        guard webview != .embedded else { return nil }
        let device = Device(stateDirectory: global.stateDirectoryURL)
        let installed = try app.installedApp(global)
        if let reason = try device.brokerUnavailable(for: installed) {
            guard webview == .broker else { return nil }
            throw UsageFailure(message: "--webview broker: \(reason)")
        }
        return installed?.bundleID
    }
}
