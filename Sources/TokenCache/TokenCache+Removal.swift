import Foundation
import SharedKeychain

extension TokenCache {
    /// MSAL's `removeAccount`: deletes, one item at a time, every credential of the account
    /// whose JSON `client_id` is this app's, and marks the account `signed_out` for this client.
    /// Account records stay. Because a family refresh token's `client_id` is whichever app
    /// wrote it last, this can delete the family token sibling apps rely on, as in the SDK.
    /// Writes the wipe record when a refresh token was deleted.
    ///
    /// - Parameter account: a home account ID or a username.
    /// - Returns: how many credentials were deleted.
    @discardableResult
    public func remove(account identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try snapshot()
        guard let homeAccountID = snapshot.homeAccountID(named: identifier, environment: environment) else {
            throw .accountNotFound(identifier)
        }
        let home = CacheKey.normalized(homeAccountID)
        let client = CacheKey.normalized(clientID)
        var deleted = 0
        var deletedRefreshToken = false
        for entry in snapshot.credentials
        where CacheKey.normalized(entry.value.homeAccountID) == home && CacheKey.normalized(entry.value.environment) == environment
            && CacheKey.normalized(entry.value.clientID) == client {
            guard try deleteItem(entry.item) else { continue }
            deleted += 1
            if entry.value.type == .refreshToken { deletedRefreshToken = true }
        }
        let state = SignInRecord(clientID: clientID, homeAccountID: homeAccountID, environment: environment, state: .signedOut)
        try write(state.fields, managedKeys: SignInRecord.managedKeys, at: state.layout, over: snapshot.objects)
        if deletedRefreshToken { try writeWipeRecord() }
        return deleted
    }

    /// Deletes every item of the user in this environment, whichever app wrote it: every app's
    /// tokens, the account records and the sign-in states. One delete, then the wipe record.
    ///
    /// - Parameter account: a home account ID or a username.
    /// - Returns: how many items were deleted.
    @discardableResult
    public func wipeAccount(_ identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try snapshot()
        guard let homeAccountID = snapshot.homeAccountID(named: identifier, environment: environment) else {
            throw .accountNotFound(identifier)
        }
        let account = CacheKey.account(homeAccountID: homeAccountID, environment: environment)
        let deleted = try deleteAll(KeychainQuery(group: accessGroup, account: account))
        try writeWipeRecord()
        return deleted
    }

    /// MSAL's `wipeCacheForAllAccounts`: one delete of the whole group, every app's items
    /// included, then the wipe record naming this app. Any app of the group may do it; the
    /// SDK's headers warn it "will remove the SSO state from all apps sharing the same cache".
    ///
    /// - Returns: how many items were deleted.
    @discardableResult
    public func wipeCacheForAllAccounts() throws(TokenCacheError) -> Int {
        let deleted = try deleteAll(KeychainQuery(group: accessGroup))
        try writeWipeRecord()
        return deleted
    }

    /// The group's wipe record: who last deleted refresh tokens or wiped, and when.
    public func wipeInfo() throws(TokenCacheError) -> WipeRecord? {
        let query = KeychainQuery(group: accessGroup, account: WipeRecord.account, service: WipeRecord.service)
        guard let item = try items(matching: query).first else { return nil }
        do {
            return try WipeRecord(data: item.data)
        } catch {
            throw .invalidCacheItem(item: item.primaryKey.description, reason: error.reason)
        }
    }
}
