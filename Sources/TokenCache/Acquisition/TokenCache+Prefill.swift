import Foundation
import SharedKeychain

extension TokenCache {
    /// Signs `usernames` in one after another, leaving the group as that many
    /// ``signIn(username:tenant:scopes:)`` calls leave it, at a fraction of the cost: a load
    /// test's prefill of thousands of cached accounts.
    ///
    /// Each user's tokens, app metadata and account are written as a sign-in writes them
    /// (`saveTokensWithConfiguration`, the same calls in the same order). The client's
    /// account-metadata item, which every sign-in reads and rewrites whole, is read once and
    /// written once at the end with every user's entry (`signed_in`, and the authority map a
    /// sign-in sets): the item then holds what the last of the sign-ins would have written. One
    /// write instead of one per user, because the item grows by an entry per account: at
    /// 10,000 accounts it is megabytes, and sign-ins in turn would write it about
    /// `count² / 2` entries' worth in all.
    ///
    /// - Parameters:
    ///   - usernames: the users' sign-in names, each signed in once, in this order.
    ///   - tenant: the authority's tenant, as in ``signIn(username:tenant:scopes:)``.
    ///   - scopes: what the access tokens are for.
    ///   - progress: called after each user's tokens are written, with the number written so far.
    /// - Returns: the number of users signed in.
    /// - Throws: ``TokenCacheError/invalidArgument(_:)`` for an empty username or an app built
    ///   with ADAL (whose sign-ins write no account metadata); otherwise the first failed
    ///   keychain call, which stops the prefill (what was written stays).
    @discardableResult
    public func prefillSignIns(
        usernames: [String], tenant: String = "common", scopes: [String] = TokenCache.defaultScopes,
        progress: (Int) -> Void = { _ in }
    ) throws(TokenCacheError) -> Int {
        guard configuration.sdk == .msal else { throw .invalidArgument("a prefill signs in as MSAL does; this app is built with ADAL") }
        guard !usernames.contains(where: { $0.trimmingWhitespace.isEmpty }) else { throw .invalidArgument("a username is empty") }
        let scopes = try Self.normalized(scopes)
        let requestAuthority: Authority
        do { requestAuthority = try Authority(host: configuration.authorityHost, tenant: tenant) } catch { throw .invalidArgument(error.message) }
        var metadata = try accountMetadata.readAccountMetadata()?.value ?? AccountMetadataItem(clientID: clientID)
        let before = metadata
        for (index, username) in usernames.enumerated() {
            let user = issuer.user(username: username, tenant: tenant)
            var response = issuer.issue(
                to: user, clientID: clientID, familyID: serverFamilyID, environment: environment, scopes: scopes, at: now())
            response.requestAuthority = requestAuthority
            // What saveTokens' account-metadata step does to the item, kept in memory.
            let homeAccountID = response.account.homeAccountID
            metadata.setState(.signedIn, for: homeAccountID)
            if let result = response.resultAuthority, result != requestAuthority.url {
                metadata.setCachedAuthorityURL(result, forRequest: requestAuthority.url, homeAccountID: homeAccountID)
            }
            try defaultAccessor.saveTokensWithConfiguration(response)
            progress(index + 1)
        }
        if metadata != before {
            try keychainCache.saveData(metadata.encoded(), at: AccountMetadataItem.layout(clientID: clientID))
        }
        return usernames.count
    }
}
