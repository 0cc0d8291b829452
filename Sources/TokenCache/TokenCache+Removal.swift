import SharedKeychain

extension TokenCache {
    /// MSAL's `removeAccount` (`MSALPublicClientApplication.m` `removeAccountImpl`, IdentityCore
    /// `MSIDDefaultTokenCacheAccessor clearCacheForAccount`): reads the whole group and deletes,
    /// one item at a time, every credential of the account whose JSON `client_id` is this app's,
    /// in ANY environment, writing the wipe record after each refresh-token delete
    /// (`MSIDAccountCredentialCache removeCredential`); then marks the account `signed_out` in
    /// this client's account metadata. Account records stay. Because a family refresh token's
    /// `client_id` is whichever app wrote it last, this can delete the family token sibling apps
    /// rely on, as in the SDK.
    ///
    /// - Parameter identifier: a home account ID or a username.
    /// - Returns: how many credentials were deleted.
    ///
    /// Then the legacy accessor's part (`clearCacheForAccount`): ADAL's legacy
    /// items of the user's UPN whose client ID is this app's, each deleted by its key, the wipe
    /// record after each refresh token; the family's `foci-<fid>` copy survives. An ADAL app
    /// (`removeAllForUserId:clientId:`) deletes its legacy items first, then, through its other
    /// accessor, this client's MSAL-format credentials, and keeps no sign-in state.
    @discardableResult
    public func remove(account identifier: String) throws(TokenCacheError) -> Int {
        try defaultAccessor.remove(account: identifier)
    }

    /// The items `removal` would delete now, deleting nothing: what `--dry-run` shows.
    public func itemsRemoved(by removal: Removal) throws(TokenCacheError) -> [KeychainItem] {
        try defaultAccessor.itemsRemoved(by: removal)
    }

    /// MSAL's sign-out with `wipeAccount` (`removeAccountImpl` with `wipeAccount:YES`: no client
    /// filter, `clearAccounts:YES`): every app's credentials of the user in any environment and
    /// the user's account records, one delete each (the wipe record after each refresh token),
    /// then `signed_out` in this client's account metadata; other clients' metadata is
    /// untouched. The SDK's header warns it "will remove the SSO state from all apps sharing the
    /// same cache".
    ///
    /// - Parameter identifier: a home account ID or a username.
    /// - Returns: how many items were deleted.
    ///
    /// Then every client's legacy items of the user's UPN, `foci-*` copies included, in one
    /// delete and one wipe record. An ADAL app
    /// (`wipeAllItemsForUserId:`) deletes the legacy items first, then every client's
    /// MSAL-format credentials of the user, keeps the account records and no sign-in state.
    @discardableResult
    public func wipeAccount(_ identifier: String) throws(TokenCacheError) -> Int {
        try defaultAccessor.wipeAccount(identifier)
    }

    /// MSAL's `wipeCacheForAllAccounts` (`clearCacheForAllAccountsWithContext`): one
    /// `SecItemDelete({class, group})` by the default accessor and the same again by the legacy
    /// one (which finds nothing): every app's items, account metadata and the wipe record go, and
    /// nothing is written after, so on a device a full wipe leaves no trace of who made it. Any
    /// app of the group may do it. The emulator's own record of it is its intent journal and,
    /// with the audit mitigation, the audit journal, outside the group.
    ///
    /// - Returns: how many items were deleted.
    @discardableResult
    public func wipeCacheForAllAccounts() throws(TokenCacheError) -> Int {
        try defaultAccessor.wipeCacheForAllAccounts()
    }
    /// A removal, named so that it can be planned (``itemsRemoved(by:)``) before it is made.
    public enum Removal: Sendable, Hashable {
        /// ``remove(account:)``.
        case account(String)
        /// ``wipeAccount(_:)``.
        case wipeAccount(String)
        /// ``wipeCacheForAllAccounts()``.
        case everything
    }

    /// The emulator's record of the last finished deletions of this group's tokens (which app,
    /// which operation, how many items), oldest first. A device keeps none: on iOS nothing
    /// records which app deleted an item, and a full wipe deletes even MSAL's wipe record.
    public func deletionHistory() throws(TokenCacheError) -> [IntentJournal.Deletion] {
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.deviceAccessGroupList))
        }
        do { return try IntentJournal(store: keychain.store.journalStore).deletions(group: accessGroup) } catch {
            throw .keychain(.storage(error))
        }
    }

    /// Deletions of this group's tokens that were interrupted (the process died between its
    /// intent and its end), with what each removed and what remains.
    public func interruptedDeletions() throws(TokenCacheError) -> [IntentJournal.Interrupted] {
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.deviceAccessGroupList))
        }
        do { return try IntentJournal(store: keychain.store.journalStore).interrupted(group: accessGroup) } catch {
            throw .keychain(.storage(error))
        }
    }

    /// The group's wipe record: who last deleted refresh tokens, and when (`wipeInfo:`: the first
    /// item with account `TokenWipe` and the record's generic, any service). A record that
    /// cannot be read counts as none, as in the SDK (which logs it), and is reported to
    /// ``TokenCacheConfiguration/skippedItems``.
    public func wipeInfo() throws(TokenCacheError) -> WipeRecord? {
        try keychainCache.wipeInfo()
    }
}
