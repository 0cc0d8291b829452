extension TokenCache {
    /// MSAL's `acquireToken` as an app calls it: silently when it can (see
    /// ``acquireTokenSilent(account:scopes:forceRefresh:)``); when that needs interaction and `interactive`
    /// allows it, an emulated interactive sign-in of the same user, which needs the identifier
    /// to be a username. The result's `source` says which happened.
    ///
    /// - Throws: ``TokenCacheError/interactionRequired(reason:lastWipe:)`` when no token is
    ///   usable and no sign-in is allowed (or possible with a home account ID).
    public func acquireToken(account identifier: String, scopes: [String], interactive: Bool) throws(TokenCacheError)
        -> AuthenticationResult
    {
        do {
            return try acquireTokenSilent(account: identifier, scopes: scopes)
        } catch .interactionRequired where interactive && identifier.contains("@") {
            return try signIn(username: identifier, scopes: scopes)
        }
    }
}
