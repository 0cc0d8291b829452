import Foundation
import SharedKeychain

/// Items of one group, decoded once: the whole group (export, removals) or what one of the SDK's
/// queries returned (silent acquisition, the account list, the lookups of a save).
struct CacheSnapshot: Sendable {
    /// One decoded item: the item, its value as a model, and its JSON as stored (empty for
    /// account metadata, whose JSON the SDK rebuilds from its value).
    struct Entry<Value: Sendable>: Sendable {
        let item: KeychainItem
        let value: Value
        let object: JSONObject

        var address: ItemAddress { ItemAddress(account: item.account, service: item.service) }
    }

    private(set) var credentials: [Entry<Credential>] = []
    private(set) var accounts: [Entry<CachedAccount>] = []
    private(set) var appMetadata: [Entry<AppMetadata>] = []
    private(set) var accountMetadata: [Entry<AccountMetadataItem>] = []
    /// Sign-in records of the emulator's earlier layout (type 4001), read until converted.
    private(set) var legacySignInStates: [Entry<LegacySignInRecord>] = []
    /// Items whose value cannot be used (cache items, account metadata, the wipe record): the
    /// SDKs skip them, and so does every reader here; ``TokenCache/decoded(_:)`` reports them.
    private(set) var skipped: [(item: KeychainItem, reason: String)] = []
    private(set) var wipeRecord: WipeRecord?
    /// The stored JSON of every cache item that holds a JSON object, for rewrites that keep
    /// unknown fields.
    private(set) var objects: [ItemAddress: JSONObject] = [:]

    init(items: [KeychainItem]) {
        for item in items { add(item) }
    }

    private mutating func add(_ item: KeychainItem) {
        if WipeRecord.isRecord(item) {
            do { wipeRecord = try WipeRecord(data: item.data) } catch { skipped.append((item, error.reason)) }
            return
        }
        guard let type = item.type else { return }
        if type == ItemType.accountMetadata, let known = AccountMetadataMemo.value(of: item.data, service: item.service) {
            accountMetadata.append(Entry(item: item, value: known, object: [:]))
            return
        }
        let isCacheItem = ItemType.credentials.contains(type) || ItemType.accounts.contains(type) || type == ItemType.appMetadata
        guard isCacheItem || type == ItemType.accountMetadata || type == ItemType.legacySignInState else { return }
        let object: JSONObject
        do { object = try CacheJSON.parse(item.data) } catch {
            skipped.append((item, error.reason))
            return
        }
        // Kept even when the value is invalid, so a rewrite still carries its unknown fields.
        // (Not for account metadata: the SDK rebuilds its JSON from what it parsed.)
        if type != ItemType.accountMetadata { objects[ItemAddress(account: item.account, service: item.service)] = object }
        do throws(FieldError) {
            if let credentialType = CredentialType(itemType: type) {
                let credential = try Credential(object: object)
                guard credential.type == credentialType else {
                    throw FieldError("'credential_type' is \(credential.type.rawValue), but the item's type is \(type)")
                }
                credentials.append(Entry(item: item, value: credential, object: object))
            } else if let authorityType = AuthorityType(itemType: type) {
                let account = try CachedAccount(object: object)
                guard account.authorityType == authorityType else {
                    throw FieldError("'authority_type' is \(account.authorityType.rawValue), but the item's type is \(type)")
                }
                accounts.append(Entry(item: item, value: account, object: object))
            } else if type == ItemType.appMetadata {
                appMetadata.append(Entry(item: item, value: try AppMetadata(object: object), object: object))
            } else if type == ItemType.accountMetadata {
                let value = try AccountMetadataItem(object: object)
                AccountMetadataMemo.remember(item.data, value: value, service: item.service)
                accountMetadata.append(Entry(item: item, value: value, object: [:]))
            } else {
                legacySignInStates.append(Entry(item: item, value: try LegacySignInRecord(object: object), object: object))
            }
        } catch {
            skipped.append((item, error.reason))
        }
    }

    /// The credential stored at `layout`, if it decodes.
    func credential(at layout: ItemLayout) -> Entry<Credential>? {
        credentials.first { $0.item.account == layout.account && $0.item.service == layout.service && $0.item.type == layout.type }
    }

    /// The app metadata of `clientID` in any environment, the first found: how MSAL's account
    /// list finds the app's family (`MSALAccountsProvider appMetadataItem`).
    func anyAppMetadata(clientID: String) -> AppMetadata? {
        let client = CacheKey.normalized(clientID)
        return appMetadata.first { CacheKey.normalized($0.value.clientID) == client }?.value
    }

    /// The account-metadata item of `clientID`, if the snapshot holds it.
    func accountMetadata(clientID: String) -> Entry<AccountMetadataItem>? {
        accountMetadata.first { $0.item.service == clientID } ?? accountMetadata.first { CacheKey.normalized($0.item.service) == CacheKey.normalized(clientID) }
    }

    /// This client's sign-in records of the earlier layout, every account and environment.
    func legacyRecords(clientID: String) -> [Entry<LegacySignInRecord>] {
        let client = CacheKey.normalized(clientID)
        return legacySignInStates.filter { CacheKey.normalized($0.value.clientID) == client }
    }

    /// This client's sign-in records of the earlier layout for `homeAccountID`, any environment.
    func legacyRecords(clientID: String, homeAccountID: String) -> [Entry<LegacySignInRecord>] {
        let client = CacheKey.normalized(clientID)
        let home = CacheKey.normalized(homeAccountID)
        return legacySignInStates.filter {
            CacheKey.normalized($0.value.clientID) == client && CacheKey.normalized($0.value.homeAccountID) == home
        }
    }

    /// The account `identifier` names (home account ID or username) in one of `environments`,
    /// preferring the record of the user's home tenant.
    func account(named identifier: String, in environments: EnvironmentAliases) -> CachedAccount? {
        let matches = accounts.map(\.value).filter { environments.contains($0.environment) && $0.isNamed(identifier) }
        return matches.first(where: \.isHomeTenantRecord) ?? matches.first
    }

    /// The home account ID `identifier` stands for: a listed account's, or the identifier itself
    /// when credentials of that home account remain without an account record.
    func homeAccountID(named identifier: String, in environments: EnvironmentAliases) -> String? {
        if let account = account(named: identifier, in: environments) { return account.homeAccountID }
        let wanted = CacheKey.normalized(identifier)
        return credentials.first { CacheKey.normalized($0.value.homeAccountID) == wanted && environments.contains($0.value.environment) }?
            .value.homeAccountID
    }
}
