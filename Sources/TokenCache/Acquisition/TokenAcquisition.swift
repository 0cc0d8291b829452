/// What an app asks ``TokenCache/acquireToken(_:broker:)`` for: a token for one account and
/// scopes, and how far the SDK may go when no cached token will do.
public struct TokenRequest: Sendable, Hashable {
    /// When an interactive sign-in may follow a failed silent acquisition.
    public enum Prompt: Sendable, Hashable {
        /// Never: silent acquisition only (MSAL's `acquireTokenSilent`).
        case never
        /// For an account the cache knows: a mistyped account is an error, not a new user.
        case whenKnown
        /// For any account, one the cache has never seen included.
        case always
    }

    /// The account: its home account ID or username.
    public var account: String
    /// The scopes the token must cover.
    public var scopes: [String]
    /// When an interactive sign-in may follow.
    public var prompt: Prompt
    /// Skip cached access tokens and redeem a refresh token (MSAL's `forceRefresh`).
    public var forceRefresh: Bool
    /// The tenant of the request's authority (a name or GUID), for a guest profile; nil for
    /// the account's home tenant.
    public var tenant: String?

    /// - Parameters: see the properties.
    public init(
        account: String, scopes: [String] = TokenCache.defaultScopes, prompt: Prompt = .whenKnown,
        forceRefresh: Bool = false, tenant: String? = nil
    ) {
        self.account = account
        self.scopes = scopes
        self.prompt = prompt
        self.forceRefresh = forceRefresh
        self.tenant = tenant
    }
}

/// A token ``TokenCache/acquireToken(_:broker:)`` obtained, and how.
public struct AcquiredToken: Sendable, Hashable {
    /// The token and the path that produced it (``AuthenticationResult/source``).
    public var result: AuthenticationResult
    /// When the broker answered: whether it prompted the user; nil otherwise.
    public var brokerPrompted: Bool?
}

extension TokenCache {
    /// MSAL's token acquisition as an app makes it, with its fallback: silently (see
    /// ``acquireTokenSilent(account:scopes:forceRefresh:tenant:)``); when that needs interaction and the
    /// request's prompt allows it, through the broker when `broker` gives a channel (a request,
    /// the broker's answer, the response accepted), else an emulated interactive sign-in
    /// (``acquireToken(account:scopes:interactive:forceRefresh:tenant:)``).
    ///
    /// - Parameters:
    ///   - request: the account, the scopes and when a prompt may follow.
    ///   - broker: asked only when a prompt follows: the channel to the broker, or nil for an
    ///     interactive sign-in in the app.
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is
    ///   usable and no prompt is allowed; ``TokenCacheError/signInNotTried(account:reason:lastWipe:)``
    ///   when one would be allowed only for an account the cache knows and it does not know
    ///   this one; other ``TokenCacheError``s from the cache; what `broker` and its channel throw.
    public func acquireToken(_ request: TokenRequest, broker: () throws -> (any BrokerChannel)?) throws -> AcquiredToken {
        if let result = try silentResult(for: request) { return AcquiredToken(result: result) }
        guard let channel = try broker() else { return AcquiredToken(result: try signInInteractively(for: request)) }
        let brokerRequest = try brokerRequest(loginHint: request.account, scopes: request.scopes, redirectURI: channel.redirectURI)
        let answer = try channel.send(brokerRequest)
        return AcquiredToken(result: try acceptBrokerResponse(answer.url, to: brokerRequest), brokerPrompted: answer.prompted)
    }

    /// ``acquireToken(_:broker:)`` for an app that does not use the broker: a prompt, when
    /// allowed, is an interactive sign-in in the app.
    public func acquireToken(_ request: TokenRequest) throws(TokenCacheError) -> AcquiredToken {
        if let result = try silentResult(for: request) { return AcquiredToken(result: result) }
        return AcquiredToken(result: try signInInteractively(for: request))
    }

    /// The silent step: the token, or nil when a prompt is to follow; the error when it may not.
    private func silentResult(for request: TokenRequest) throws(TokenCacheError) -> AuthenticationResult? {
        do {
            return try acquireToken(
                account: request.account, scopes: request.scopes, interactive: false, forceRefresh: request.forceRefresh, tenant: request.tenant)
        } catch .interactionRequired(let reason, let lastWipe) {
            guard request.prompt != .never else { throw .interactionRequired(reason: reason, lastWipe: lastWipe) }
            if request.prompt == .whenKnown, try !knows(account: request.account) {
                throw .signInNotTried(account: request.account, reason: reason, lastWipe: lastWipe)
            }
            return nil
        }
    }

    /// The emulated interactive sign-in, which tries silently once more first, as the command
    /// always has (its call trace shows both).
    private func signInInteractively(for request: TokenRequest) throws(TokenCacheError) -> AuthenticationResult {
        try acquireToken(account: request.account, scopes: request.scopes, interactive: true, tenant: request.tenant)
    }
}
