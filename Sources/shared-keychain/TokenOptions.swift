import ArgumentParser
import Foundation
import Device
import SharedKeychain
import SuiteManifest
import TokenCache

/// How an app's MSAL configuration is given on the command line.
struct TokenOptions: ParsableArguments {
    @Option(name: .customLong("client-id"), help: "The app registration's client ID; every app of a suite shares one. With --suite: from the manifest.")
    var clientID: String?

    @Option(name: .customLong("family-id"), help: "The app's family (FOCI), e.g. 1; family apps share a family refresh token. With --suite: from the manifest.")
    var familyID: String?

    @Option(name: .customLong("sharing-group"), help: "The keychain sharing group, without the team prefix (default com.microsoft.adalcache). With --suite: from the manifest.")
    var sharingGroup: String?

    @Option(name: .customLong("authority-host"), help: ArgumentHelp(
        "The authority host alone (the authority is then https://<host>/common). Items are written under its cloud's preferred_cache (login.windows.net for login.microsoftonline.com, as instance discovery answers) and found under any alias of the cloud.",
        valueName: "host"))
    var authorityHost: String = TokenCacheConfiguration.defaultAuthorityHost

    @Option(help: ArgumentHelp(
        "The authority, as MSAL takes it: https://<host>/<tenant>, the tenant common, organizations, consumers, a tenant ID or a domain name (contoso.onmicrosoft.com); the host must be of a cloud instance discovery knows (public, China, US Government, Germany). Replaces --authority-host; a sign-in authenticates in its tenant. HTTP, ADFS and B2C authorities are refused.",
        valueName: "url"))
    var authority: String?

    /// `--authority` parsed, or nil when it is not given.
    func parsedAuthority() throws -> Authority? {
        guard let authority else { return nil }
        return try Authority(parsing: authority)
    }

    /// The tenant a sign-in authenticates in: `--tenant`, else the tenant of `--authority`,
    /// else `common`. Both given must agree.
    func signInTenant(_ tenant: String?) throws -> String {
        guard let authority = try parsedAuthority() else { return tenant ?? TokenCacheConfiguration.defaultAuthorityTenant }
        guard let tenant else { return authority.tenant }
        guard tenant.trimmingCharacters(in: .whitespaces).lowercased() == authority.tenant else {
            throw UsageFailure(message: "--tenant '\(tenant)' differs from the tenant of --authority '\(authority.tenant)'; give one of them")
        }
        return authority.tenant
    }

    @Option(help: ArgumentHelp("Pretend it is this time: ISO 8601 (2026-11-22T10:00:00Z) or epoch seconds.", valueName: "time"))
    var now: String?

    @Option(name: .customLong("token-lifetime"), parsing: .unconditional, help: ArgumentHelp(
        "Lifetime of access tokens the emulated issuer mints: 90s, 60m, 1h; a bare number is seconds.", valueName: "duration"))
    var tokenLifetimeDuration = WrittenDuration(seconds: 3600)

    /// `--token-lifetime` in seconds.
    var tokenLifetime: Double { tokenLifetimeDuration.seconds }

    @Option(name: .customLong("refresh-in"), parsing: .unconditional, help: ArgumentHelp(
        "The refresh_in the emulated server sends with access tokens: 90s, 30m, 1h; a bare number is seconds. MSAL writes refresh_on (issue time + refresh_in) on the access token and, once it has passed, refreshes the token although it has not expired. Default: none is sent.",
        valueName: "duration"))
    var refreshInDuration: WrittenDuration?

    @Option(name: .customLong("server-refuses-family"), help: ArgumentHelp(
        "A client ID the emulated server keeps out of every family, whatever --family-id says: it sends the client no foci and answers its family refresh tokens with invalid_grant, suberror client_mismatch, after which MSAL writes the app metadata family_id \"\" and stops looking for family tokens. Repeat for more clients.",
        valueName: "client-id"))
    var clientsOutsideFamily: [String] = []

    /// The emulated server as the options set it.
    var issuer: EmulatedIssuer {
        EmulatedIssuer(accessTokenLifetime: tokenLifetime, refreshIn: refreshInDuration?.seconds, clientsOutsideFamily: Set(clientsOutsideFamily))
    }

    @Flag(name: .customLong("show-secrets"), help: "Print token values in full instead of masked.")
    var showSecrets = false

    @Option(name: .customLong("single-frt-flight"), help: ArgumentHelp(
        "MSAL's sfrt_v2 flight for this app: on switches the whole group to single family-refresh-token mode (one FamilyRefreshToken, type 2008, no per-client copy) through its shared useSingleFRT item; off switches it back.",
        valueName: "on|off"))
    var singleFRTFlight: SingleFRTFlight?

    @Option(help: ArgumentHelp(
        "The SDK the app is built with: msal (the default) or adal, whose sign-ins write ADAL's legacy items (MSOpenTech.ADAL.1, keyed archives) beside MSAL's. With --suite: from the manifest's sdk.",
        valueName: "msal|adal"))
    var sdk: TokenCacheSDK?

    @Flag(help: "Print each keychain call the operation makes, in order, on standard error: the SecItem function, account, service, generic, type and accessibility (never data), and the status. This is what MSAL does to the keychain.")
    var trace = false

    /// Token lifetimes from one second to ten years.
    static let tokenLifetimes: ClosedRange<Double> = 1...315_360_000
    /// `--now` from 1970 to the end of year 9999, in epoch seconds.
    static let epochSeconds: ClosedRange<Double> = 0...253_402_300_799

    /// Range checks of --token-lifetime, --refresh-in and --now.
    func check() throws {
        try InputValidation.check(tokenLifetime, "--token-lifetime", in: Self.tokenLifetimes, unit: "seconds")
        if let refreshIn = refreshInDuration?.seconds {
            try InputValidation.check(refreshIn, "--refresh-in", in: Self.tokenLifetimes, unit: "seconds")
        }
        _ = try clock()
    }

    func clock() throws -> @Sendable () -> Date {
        guard let now else { return { Date() } }
        if let seconds = Double(now) {
            try InputValidation.check(seconds, "--now", in: Self.epochSeconds, unit: "epoch seconds (1970 to 9999)")
            return { Date(timeIntervalSince1970: seconds) }
        }
        guard let date = try? Date(now, strategy: .iso8601) else {
            throw UsageFailure(message: "--now '\(now)' is neither ISO 8601 (2026-11-22T10:00:00Z) nor epoch seconds")
        }
        try InputValidation.check(date.timeIntervalSince1970, "--now", in: Self.epochSeconds, unit: "epoch seconds (1970 to 9999)")
        return { date }
    }

    /// The app's token cache on the device's keychain, under the mitigation policy `policy`
    /// names (else the state directory's).
    func tokenCache(_ global: GlobalOptions, app: AppOptions, policy: AuditPolicyOptions? = nil) throws -> TokenCache {
        try check()
        let resolved = try app.resolve(global)
        let keychain = try global.session(policy: policy).keychain(for: resolved)
        var configuration = try configuration(for: resolved.settings)
        if trace {
            configuration.trace = KeychainCallTrace { call in Output.standardError.write("trace: \(call)\n") }
        }
        configuration.skippedItems = SkippedItemReport { Output.warn(skipped: $0, json: global.json) }
        let cache = try TokenCache(keychain: keychain, configuration: configuration,
                                   issuer: issuer, now: clock())
        // A cache import killed half-way is undone before anyone reads the group.
        for intent in try cache.rollBackInterruptedImports() {
            Output.standardError.write(
                "note: rolled back a cache import by \(intent.app) at \(intent.time.formatted(.iso8601)) that never finished; the group is as it was before it\n")
        }
        return cache
    }

    /// The app's MSAL configuration: what its manifest says (`settings`: the suite's entry, or
    /// what the device kept at install), with the options given here in front.
    func configuration(for settings: AppSettings?) throws -> TokenCacheConfiguration {
        guard let clientID = clientID ?? settings?.clientID else {
            throw UsageFailure(message: "give --client-id (or act as an installed app, or --suite with an app that has a client_id)")
        }
        let authority = try parsedAuthority()
        let host = authority?.host ?? authorityHost
        var configuration = settings?.tokenCacheConfiguration(authorityHost: host)
            ?? TokenCacheConfiguration(clientID: clientID, authorityHost: host)
        if let authority { configuration.authorityTenant = authority.tenant }
        configuration.clientID = clientID
        if let sharingGroup { configuration.keychainSharingGroup = sharingGroup }
        if let familyID { configuration.familyID = familyID }
        if let sdk { configuration.sdk = sdk }
        configuration.singleFRTFlight = singleFRTFlight
        return configuration
    }

    func secret(_ secret: TokenSecret) -> String { showSecrets ? secret.value : secret.masked }
}

/// A token result as `--json` prints it.
struct AuthenticationJSON: Encodable {
    let account: CachedAccount
    let accessToken: String
    let idToken: String?
    let scopes: [String]
    let expiresOn: Date
    let tenantID: String
    let source: String
    /// With source `broker`: whether the broker had to sign the user in (it held no account).
    var brokerPrompted: Bool?
    /// The cache writes that failed while the token was returned; absent when it was cached whole.
    let cacheSaveFailures: [CacheSaveFailureJSON]?

    init(_ result: AuthenticationResult, options: TokenOptions) {
        account = result.account
        accessToken = options.secret(result.accessToken)
        idToken = result.idToken.map(options.secret)
        scopes = result.scopes
        expiresOn = result.expiresOn
        tenantID = result.tenantID
        source = result.source.rawValue
        cacheSaveFailures = result.cacheSaveFailures.isEmpty ? nil : result.cacheSaveFailures.map(CacheSaveFailureJSON.init)
    }

    var text: String {
        """
        account:      \(account)
        access token: \(DisplayText(accessToken, limit: .max))
        scopes:       \(DisplayText(scopes.joined(separator: " ")))
        expires:      \(expiresOn.formatted(.iso8601))
        source:       \(source)\(brokerPrompted.map { $0 ? " (the broker signed the user in)" : " (the broker held the account: no prompt)" } ?? "")

        """
    }
}

/// A failed cache write as `--json` prints it: the keychain call and its status, never data.
struct CacheSaveFailureJSON: Encodable {
    let step: String
    let function: String?
    let account: String?
    let service: String?
    let type: UInt32?
    let status: Int32
    let statusName: String
    let message: String
    let itemsWritten: Int

    init(_ failure: CacheSaveFailure) {
        step = failure.step.rawValue
        function = failure.call?.function.rawValue
        account = failure.call?.account
        service = failure.call?.service
        type = failure.call?.type
        status = failure.status.rawValue
        statusName = failure.status.name
        message = failure.message
        itemsWritten = failure.itemsWritten
    }
}

extension Output {
    /// One line on standard error when the token was returned but not cached whole, as MSAL
    /// logs it and returns the token: each failed step, its keychain call and status.
    static func warn(cacheSaveFailures failures: [CacheSaveFailure]) {
        guard let last = failures.last else { return }
        let steps = failures.map(\.description).joined(separator: "; ")
        standardError.write(
            "warning: the token was returned but not cached (MSAL logs this and returns the token; the next launch finds only what was written): \(steps): \(DisplayText(last.message, limit: .max))\n")
    }
}

extension SingleFRTFlight: ExpressibleByArgument {}
extension TokenCacheSDK: ExpressibleByArgument {}
