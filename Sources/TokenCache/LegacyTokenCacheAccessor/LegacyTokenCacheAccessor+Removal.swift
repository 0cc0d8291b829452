import Foundation
import SharedKeychain

extension LegacyTokenCacheAccessor {
    /// The legacy items `clearCacheForAccount` deletes for one client (MSAL's `removeAccount`,
    /// ADAL's `removeAllForUserId:clientId:`): the user's legacy items (one query `{account
    /// b64(UPN), generic}`) whose client ID is exactly `clientID`. The `foci-<fid>` copy is
    /// another client ID, so it survives.
    func removalTargets(userID: String?, clientID: String) throws(TokenCacheError) -> [LegacyEntry] {
        guard let userID, !userID.trimmingWhitespace.isEmpty else { return [] }
        let client = CacheKey.normalized(clientID)
        return try items(userID: userID).filter { CacheKey.normalized($0.value.clientID) == client }
    }

    /// Deletes each target by its exact key, the user taken from its ID token
    /// (`removeTokenEnvironment:…userId:`), and writes the wipe record after each refresh token
    /// (the SDK counts a delete that found nothing as done, and records it all the same).
    /// Returns how many were deleted.
    func remove(_ targets: [LegacyEntry], userID: String) throws(TokenCacheError) -> Int {
        var deleted = 0
        for entry in targets {
            let token = entry.value
            let key = LegacyTokenCacheKey(authority: token.authority, clientID: token.clientID, resource: token.resource, userID: token.userID ?? userID)
            let query = KeychainQuery(group: accessGroup, account: key.account, service: key.service, generic: LegacyTokenCacheKey.generic)
            deleted += try keychainCache.deleteAll(query)
            if token.kind == .refreshToken { try keychainCache.saveWipeInfo() }
        }
        return deleted
    }

    /// The legacy part of a `wipeAccount` (`clearCacheForAccount` with no client, family or
    /// authority): one `SecItemDelete {account b64(UPN), generic}`, every client's legacy items
    /// of the user, `foci-*` copies included, then one wipe record. Returns how many went.
    func wipe(userID: String?) throws(TokenCacheError) -> Int {
        guard let userID, !userID.trimmingWhitespace.isEmpty else { return 0 }
        let deleted = try keychainCache.deleteAll(KeychainQuery(
            group: accessGroup, account: LegacyTokenCacheKey.account(userID: userID), generic: LegacyTokenCacheKey.generic))
        try keychainCache.saveWipeInfo()
        return deleted
    }

    /// The UPN legacy items of `identifier` are kept under: the listed account's username (MSAL
    /// finds them through `displayableId`), or the identifier when it is one; nil otherwise.
    func userID(_ identifier: String, in snapshot: CacheSnapshot) -> String? {
        if let account = snapshot.account(named: identifier, in: EnvironmentAliases([environment])), !account.username.isEmpty { return account.username }
        return identifier.contains("@") ? identifier : nil
    }
}
