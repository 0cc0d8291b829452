import Foundation
import SharedKeychain

extension DefaultTokenCacheAccessor {
    /// ``TokenCache/remove(account:)``.
    func remove(account identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try keychainCache.snapshot()
        let userID = otherAccessor.userID(identifier, in: snapshot)
        let legacy = try otherAccessor.removalTargets(userID: userID, clientID: clientID)
        let homeAccountID: String
        let targets: [(item: KeychainItem, value: Credential)]
        do {
            (homeAccountID, targets) = try credentialsRemoved(for: identifier, in: snapshot)
        } catch .accountNotFound(let name) {
            // A user only ADAL's legacy items know is removed all the same.
            guard let home = legacy.lazy.compactMap(\.value.homeAccountID).first else { throw .accountNotFound(name) }
            (homeAccountID, targets) = (home, [])
        }
        let query = "credentials of \(DisplayText(homeAccountID)) for client \(clientID)"
        let scope = KeychainQuery(group: accessGroup)
        let items = targets.map(\.item) + legacy.map(\.item)
        let deleted = try keychainCache.journaled("token remove", query: query, scope: scope, items: items) {
            () throws(TokenCacheError) -> Int in
            switch sdk {
            case .msal: return try deleteCredentials(targets) + otherAccessor.remove(legacy, userID: userID ?? identifier)
            case .adal: return try otherAccessor.remove(legacy, userID: userID ?? identifier) + deleteCredentials(targets)
            }
        }
        if sdk == .msal { try accountMetadata.updateSignInState(of: homeAccountID, to: .signedOut, legacy: snapshot) }
        return deleted
    }

    /// Removes each credential (`removeCredential`: by its key, the wipe record after each
    /// refresh token); returns how many were deleted.
    private func deleteCredentials(_ targets: [(item: KeychainItem, value: Credential)]) throws(TokenCacheError) -> Int {
        var deleted = 0
        for entry in targets where try credentialCache.removeCredential(entry) { deleted += 1 }
        return deleted
    }

    /// The credentials ``remove(account:)`` deletes: the account's, this client's, any environment.
    private func credentialsRemoved(for identifier: String, in snapshot: CacheSnapshot, anyClient: Bool = false) throws(TokenCacheError)
        -> (homeAccountID: String, targets: [(item: KeychainItem, value: Credential)])
    {
        guard let homeAccountID = snapshot.homeAccountID(named: identifier, in: environmentAliases) else {
            throw .accountNotFound(identifier)
        }
        let home = CacheKey.normalized(homeAccountID)
        let client = CacheKey.normalized(clientID)
        let targets = snapshot.credentials.filter { entry in
            CacheKey.normalized(entry.value.homeAccountID) == home && (anyClient || CacheKey.normalized(entry.value.clientID) == client)
        }
        return (homeAccountID, targets.map { (item: $0.item, value: $0.value) })
    }

    /// ``TokenCache/itemsRemoved(by:)``.
    func itemsRemoved(by removal: TokenCache.Removal) throws(TokenCacheError) -> [KeychainItem] {
        switch removal {
        case .account(let identifier):
            let snapshot = try keychainCache.snapshot()
            let legacy = try otherAccessor.removalTargets(userID: otherAccessor.userID(identifier, in: snapshot), clientID: clientID).map(\.item)
            return try credentialsRemoved(for: identifier, in: snapshot).targets.map(\.item) + legacy
        case .wipeAccount(let identifier):
            let snapshot = try keychainCache.snapshot()
            let legacy = try otherAccessor.userID(identifier, in: snapshot).map { userID throws(TokenCacheError) in try otherAccessor.items(userID: userID).map(\.item) } ?? []
            return try wipeAccountTargets(identifier, in: snapshot).items + legacy
        case .everything:
            return try keychainCache.items(matching: keychainCache.groupQuery)
        }
    }

    /// What `wipeAccount` deletes: every client's credentials of the account in any
    /// environment, and its account records.
    private func wipeAccountTargets(_ identifier: String, in snapshot: CacheSnapshot) throws(TokenCacheError)
        -> (homeAccountID: String, credentials: [(item: KeychainItem, value: Credential)], accounts: [KeychainItem], items: [KeychainItem])
    {
        let (homeAccountID, credentials) = try credentialsRemoved(for: identifier, in: snapshot, anyClient: true)
        let home = CacheKey.normalized(homeAccountID)
        let accounts = snapshot.accounts.filter { CacheKey.normalized($0.value.homeAccountID) == home }.map(\.item)
        return (homeAccountID, credentials, accounts, credentials.map(\.item) + accounts)
    }

    /// ``TokenCache/wipeAccount(_:)``.
    func wipeAccount(_ identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try keychainCache.snapshot()
        let userID = otherAccessor.userID(identifier, in: snapshot)
        let legacy = try userID.map { userID throws(TokenCacheError) in try otherAccessor.items(userID: userID).map(\.item) } ?? []
        let targets: (homeAccountID: String, credentials: [(item: KeychainItem, value: Credential)], accounts: [KeychainItem], items: [KeychainItem])
        do {
            targets = try wipeAccountTargets(identifier, in: snapshot)
        } catch .accountNotFound(let name) {
            guard !legacy.isEmpty else { throw .accountNotFound(name) }
            targets = (identifier, [], [], [])
        }
        let adal = sdk == .adal
        let description = "every client's credentials and the account records of \(DisplayText(targets.homeAccountID))"
        let deleted = try keychainCache.journaled("token wipe-account", query: description, scope: KeychainQuery(group: accessGroup), items: targets.items + legacy) {
            () throws(TokenCacheError) -> Int in
            var deleted = adal ? try otherAccessor.wipe(userID: userID) : 0
            deleted += try deleteCredentials(targets.credentials)
            if !adal {
                for item in targets.accounts where try keychainCache.deleteItem(item) { deleted += 1 }
                deleted += try otherAccessor.wipe(userID: userID)
            }
            return deleted
        }
        if !adal, !targets.credentials.isEmpty || !targets.accounts.isEmpty {
            try accountMetadata.updateSignInState(of: targets.homeAccountID, to: .signedOut, legacy: snapshot)
        }
        return deleted
    }

    /// ``TokenCache/wipeCacheForAllAccounts()``.
    func wipeCacheForAllAccounts() throws(TokenCacheError) -> Int {
        let query = keychainCache.groupQuery
        return try keychainCache.journaled("token wipe", query: query.description, scope: query, items: try keychainCache.items(matching: query)) {
            () throws(TokenCacheError) in
            let deleted = try keychainCache.deleteAll(query)
            _ = try keychainCache.deleteAll(query)
            return deleted
        }
    }
}
