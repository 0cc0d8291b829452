import ArgumentParser
import Device
import Foundation
import SharedKeychain
import TokenCache

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Sign in, acquire, list, remove and wipe MSAL tokens in the shared group, as one app.",
        discussion: """
            Tokens are laid out as Microsoft's iOS SDKs keep them in the keychain sharing group \
            (<team>.com.microsoft.adalcache by default), minted by an emulated issuer: no \
            network. Token values are masked unless --show-secrets.
            """,
        subcommands: [TokenSignInCommand.self, TokenAcquireCommand.self, TokenAccountsCommand.self, TokenAccountCommand.self,
                      TokenRemoveCommand.self, TokenWipeCommand.self, TokenWipeInfoCommand.self]
    )
}

struct TokenSignInCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Interactive sign-in (emulated): writes access, refresh, family refresh and ID tokens, the account and app metadata.",
        discussion: "As MSAL, a failed cache write does not fail the sign-in: the token is printed, one warning on standard error names the failed keychain call and its status (e.g. -34018 for an app without the group, -25308 before the first unlock), --json carries it as cacheSaveFailures, and the exit code is 0. What was written before the failure stays (--trace shows it); the next launch finds only that."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: "The user's sign-in name, e.g. alice@contoso.com.")
    var user: String

    @Option(help: "The tenant: a name (fabrikam.com), a tenant ID, or common (the user's home tenant, from the username's domain). Another tenant than the home one signs the user in as a guest: the same home account ID, a second tenant profile. Default: the tenant of --authority, else common.")
    var tenant: String?

    @Option(parsing: .upToNextOption, help: "The scopes to request.")
    var scopes: [String] = TokenCache.defaultScopes

    @Option(help: ArgumentHelp(
        "Sign in this many users (at most 1,000,000), --user with {n} replaced by 0, 1, 2...: what that many sign-ins leave in the group, written fast (the client's account metadata, which each sign-in rewrites whole, written once with every entry). For a load test's prefill; prints the number signed in, no tokens.",
        valueName: "n"))
    var count: Int?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    /// The most users one `--count` signs in (a load test's prefill is 10,000).
    static let mostUsers = 1_000_000

    func checkInputs() throws {
        guard let count else { return }
        guard count > 0 else { throw UsageFailure(message: "--count takes a positive number; got \(count)") }
        // The usernames are made up front: a count past any prefill would take the process down.
        guard count <= Self.mostUsers else {
            throw UsageFailure(message: "--count signs in at most \(Self.mostUsers) users at once; got \(count)")
        }
        guard user.contains("{n}") else { throw UsageFailure(message: "--count needs {n} in --user, e.g. --user 'user{n}@contoso.com'") }
    }

    func execute() throws {
        let tenant = try tokens.signInTenant(tenant)
        let cache = try tokens.tokenCache(global, app: app)
        if let count {
            let progress = ProgressLine.counting("token signin", of: count, unit: "users")
            let signedIn = try cache.prefillSignIns(
                usernames: (0..<count).map { user.replacingOccurrences(of: "{n}", with: String($0)) }, tenant: tenant, scopes: scopes,
                progress: progress.update)
            progress.finish()
            if global.json { Output.printJSON(["signedIn": signedIn]) } else { Output.standardOutput.write("signed in \(signedIn) users\n") }
            return
        }
        let result = try cache.signIn(username: user, tenant: tenant, scopes: scopes)
        let view = AuthenticationJSON(result, options: tokens)
        Output.warn(cacheSaveFailures: result.cacheSaveFailures)
        if global.json { Output.printJSON(view) } else { Output.standardOutput.write(view.text) }
    }
}

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
        discussion: "When no token is usable: --silent fails with interaction_required (exit 20); without it, an account the cache knows is signed in again interactively (emulated), and an account it has never seen only with --interactive, so a mistyped account is an error rather than a new user. `token signin` signs a new user in."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: ArgumentHelp("The account: its home account ID or username.", valueName: "id|username"))
    var account: String

    @Option(parsing: .upToNextOption, help: "The scopes to request.")
    var scopes: [String] = TokenCache.defaultScopes

    @Option(help: "The tenant to get the token in: a name or a tenant ID, for a guest profile (its own access token; the account's one refresh token redeemed for it). Default: the account's home tenant.")
    var tenant: String?

    @Flag(help: "Never fall back to interactive sign-in.")
    var silent = false

    @Flag(help: "Allow an interactive sign-in of an account the cache has never seen.")
    var interactive = false

    @Flag(name: .customLong("force-refresh"), help: "Skip cached access tokens and redeem a refresh token, as MSAL's forceRefresh does; the new tokens replace the cached ones.")
    var forceRefresh = false

    @Option(help: ArgumentHelp(
        "Where an interactive sign-in happens: auto (the broker when installed and the app is set up for it, else embedded), embedded, or broker.",
        valueName: "type"))
    var webview: WebviewType = .auto

    @Option(name: .customLong("redirect-uri"), help: ArgumentHelp(
        "The redirect URI the broker request presents. Default: msauth.<bundle id>://auth. Another app's URI is how spoofing is tried: the broker refuses it.",
        valueName: "uri"))
    var redirectURI: String?

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        let request = TokenRequest(
            account: account, scopes: scopes, prompt: silent ? .never : interactive ? .always : .whenKnown,
            forceRefresh: forceRefresh, tenant: tenant)
        let acquired: AcquiredToken
        do {
            acquired = try cache.acquireToken(request) { try brokerChannel() }
        } catch TokenCacheError.signInNotTried(let account, let reason, let lastWipe) {
            throw TokenCacheError.interactionRequired(
                reason: "\(reason); '\(DisplayText(account))' is not an account of this cache, so no sign-in was tried: check the spelling, or sign a new user in with --interactive (or `token signin`)",
                lastWipe: lastWipe)
        }
        var view = AuthenticationJSON(acquired.result, options: tokens)
        view.brokerPrompted = acquired.brokerPrompted
        Output.warn(cacheSaveFailures: acquired.result.cacheSaveFailures)
        if global.json { Output.printJSON(view) } else { Output.standardOutput.write(view.text) }
    }

    /// The broker process, for the installed app, presenting `--redirect-uri` or the redirect URI
    /// the app's manifest gave at install; nil for an embedded sign-in.
    private func brokerChannel() throws -> (any BrokerChannel)? {
        try brokerCaller().map { caller in
            BrokerProcess(
                caller: caller.bundleID, redirectURI: redirectURI ?? caller.redirectURI ?? RedirectURI.msalDefault(bundleID: caller.bundleID),
                global: global)
        }
    }

    /// The installed app to send to the broker, or nil for an embedded sign-in.
    private func brokerCaller() throws -> InstalledApp? {
        guard webview != .embedded else { return nil }
        let device = Device(stateDirectory: global.stateDirectoryURL)
        let installed = try app.installedApp(global)
        if let reason = try device.brokerUnavailable(for: installed) {
            guard webview == .broker else { return nil }
            throw UsageFailure(message: "--webview broker: \(reason)")
        }
        return installed
    }
}

struct TokenAccountsCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "accounts",
        abstract: "List the accounts this app sees in the shared group (MSAL's allAccounts).",
        discussion: "An account shows when a refresh token for it belongs to this client or to its family, unless this client signed it out. One account per home account ID, with a tenant profile per tenant the user signed in to (a row each: tenant ID, the user's object ID there, home or guest); --json gives them as tenantProfiles. --include-signed-out lists every account record of the group, as MSAL does with returnOnlySignedInAccounts = NO, with a STATE column (signed_in, signed_out, or - for no entry); --json adds signInState and signedOut."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Flag(help: ArgumentHelp(
        "Also list accounts this client signed out, and those without a usable refresh token (MSAL's returnOnlySignedInAccounts = NO), each marked with this client's sign-in state."))
    var includeSignedOut = false

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        guard includeSignedOut else {
            let accounts = try cache.accounts()
            if global.json {
                Output.printJSON(accounts)
            } else {
                Self.printTable(accounts.map { ($0, nil) }, states: false)
            }
            return
        }
        let listed = try cache.accountsIncludingSignedOut()
        if global.json {
            Output.printJSON(listed)
        } else {
            Self.printTable(listed.map { ($0.account, $0.signInState) }, states: true)
        }
    }

    /// One row per tenant profile; the account's own cells only on its first.
    static func printTable(_ accounts: [(CachedAccount, SignInState?)], states: Bool) {
        let rows = accounts.flatMap { account, state in
            account.tenantProfiles.enumerated().map { index, profile in
                var accountCells = index == 0
                    ? [account.username, account.homeAccountID, account.environment, account.authorityType.rawValue]
                    : ["", "", "", ""]
                if states { accountCells.append(index == 0 ? state?.rawValue ?? "-" : "") }
                return accountCells + [profile.tenantID, profile.localAccountID ?? "", profile.isHomeTenant ? "home" : "guest"]
            }
        }
        let header = ["USERNAME", "HOME ACCOUNT ID", "ENVIRONMENT", "AUTHORITY"] + (states ? ["STATE"] : [])
            + ["TENANT", "LOCAL ACCOUNT ID", "PROFILE"]
        Output.standardOutput.write(TextTable(header: header, rows: rows).rendered)
        Output.standardOutput.write("\(accounts.count.counted("account"))\n")
    }
}

struct TokenAccountCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "The account this app sees for a username (MSAL's accountForUsername).",
        discussion: "The first of `token accounts` whose username matches, without regard to case; signed-out accounts are not found, as in MSAL. No such account: errSecItemNotFound, exit 11."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @Option(help: ArgumentHelp("The account's username (UPN), like alice@contoso.com.", valueName: "upn"))
    var username: String

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        guard let account = try tokens.tokenCache(global, app: app).account(username: username) else {
            throw KeychainError.itemNotFound(query: "an account signed in as '\(DisplayText(username))' that this app can use")
        }
        if global.json {
            Output.printJSON(account)
        } else {
            TokenAccountsCommand.printTable([(account, nil)], states: false)
        }
    }
}

struct TokenRemoveCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an account as MSAL does: this client's tokens for it (which may be the family refresh token siblings rely on).",
        discussion: "With --wipe-account: every app's tokens for that user, and the account items."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions
    @OptionGroup var policy: AuditPolicyOptions

    @Option(help: ArgumentHelp("The account: its home account ID or username.", valueName: "id|username"))
    var account: String

    @Flag(name: .customLong("wipe-account"), help: "Remove every app's tokens for the user, not only this client's.")
    var wipeAccount = false

    @OptionGroup var dryRun: DryRunOptions

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app, policy: policy)
        if dryRun.dryRun {
            dryRun.show(try cache.itemsRemoved(by: wipeAccount ? .wipeAccount(account) : .account(account)), json: global.json)
            return
        }
        let removed = wipeAccount ? try cache.wipeAccount(account) : try cache.remove(account: account)
        if global.json {
            Output.printJSON(["removed": removed])
        } else {
            Output.standardOutput.write("removed \(removed.counted("item")) for \(DisplayText(account))\n")
        }
    }
}

struct TokenWipeCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe",
        abstract: "Wipe the whole shared group (wipeCacheForAllAccounts): every app's tokens, for every user.",
        discussion: "Nothing stops any entitled app from doing this; the wipe record names who did."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions
    @OptionGroup var policy: AuditPolicyOptions
    @OptionGroup var dryRun: DryRunOptions

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app, policy: policy)
        if dryRun.dryRun {
            dryRun.show(try cache.itemsRemoved(by: .everything), json: global.json)
            return
        }
        let removed = try cache.wipeCacheForAllAccounts()
        if global.json {
            Output.printJSON(["removed": removed])
        } else {
            Output.standardOutput.write("wiped \(removed.counted("item")) from group \(cache.accessGroup)\n")
        }
    }
}

struct TokenWipeInfoCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe-info",
        abstract: "Show who wiped tokens: MSAL's wipe record as the device has it, and the emulator's own record of deletions."
    )

    @OptionGroup(title: "The app") var app: AppOptions
    @OptionGroup var tokens: TokenOptions

    @OptionGroup(title: "Keyring and output") var global: GlobalOptions

    func execute() throws {
        let cache = try tokens.tokenCache(global, app: app)
        let record = try cache.wipeInfo()
        let interrupted = try cache.interruptedDeletions()
        let deletions = try cache.deletionHistory()
        Output.print(WipeInfoReport(record: record, interrupted: interrupted, deletions: deletions), json: global.json)
    }
}
