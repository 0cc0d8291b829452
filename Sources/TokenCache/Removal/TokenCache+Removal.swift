import Foundation
import SharedKeychain

extension TokenCache {
    /// MSAL's `removeAccount`: deletes, one item at a time, every credential of the account
    /// whose JSON `client_id` is this app's, and marks the account `signed_out` for this client.
    /// Account records stay. Because a family refresh token's `client_id` is whichever app
    /// wrote it last, this can delete the family token sibling apps rely on, as in the SDK.
    /// Writes the wipe record when a refresh token was deleted.
    ///
    /// - Parameter identifier: a home account ID or a username.
    /// - Returns: how many credentials were deleted.
    @discardableResult
    public func remove(account identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try snapshot()
        let (homeAccountID, targets) = try credentialsRemoved(for: identifier, in: snapshot)
        let query = "credentials of \(homeAccountID) for client \(clientID)"
        let scope = KeychainQuery(group: accessGroup, account: CacheKey.account(homeAccountID: homeAccountID, environment: environment))
        var deletedRefreshToken = false
        let deleted = try journaled(
            "token remove", query: query, scope: scope, items: targets.map(\.item), writesWipeRecord: { deletedRefreshToken }
        ) {
            () throws(TokenCacheError) -> Int in
            var deleted = 0
            for entry in targets {
                guard try deleteItem(entry.item) else { continue }
                deleted += 1
                if entry.value.type == .refreshToken { deletedRefreshToken = true }
            }
            return deleted
        }
        let state = SignInRecord(clientID: clientID, homeAccountID: homeAccountID, environment: environment, state: .signedOut)
        try write(state.fields, managedKeys: SignInRecord.managedKeys, at: state.layout, over: snapshot.objects)
        return deleted
    }

    /// The credentials ``remove(account:)`` deletes: the account's, this client's.
    private func credentialsRemoved(for identifier: String, in snapshot: CacheSnapshot) throws(TokenCacheError)
        -> (homeAccountID: String, targets: [(item: KeychainItem, value: Credential)])
    {
        guard let homeAccountID = snapshot.homeAccountID(named: identifier, environment: environment) else {
            throw .accountNotFound(identifier)
        }
        let home = CacheKey.normalized(homeAccountID)
        let client = CacheKey.normalized(clientID)
        let targets = snapshot.credentials.filter { entry in
            CacheKey.normalized(entry.value.homeAccountID) == home && CacheKey.normalized(entry.value.environment) == environment
                && CacheKey.normalized(entry.value.clientID) == client
        }
        return (homeAccountID, targets.map { (item: $0.item, value: $0.value) })
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

    /// The items `removal` would delete now, deleting nothing: what `--dry-run` shows.
    public func itemsRemoved(by removal: Removal) throws(TokenCacheError) -> [KeychainItem] {
        switch removal {
        case .account(let identifier):
            return try credentialsRemoved(for: identifier, in: snapshot()).targets.map(\.item)
        case .wipeAccount(let identifier):
            return try items(matching: try wipeAccountQuery(identifier))
        case .everything:
            return try items(matching: KeychainQuery(group: accessGroup))
        }
    }

    private func wipeAccountQuery(_ identifier: String) throws(TokenCacheError) -> KeychainQuery {
        guard let homeAccountID = try snapshot().homeAccountID(named: identifier, environment: environment) else {
            throw .accountNotFound(identifier)
        }
        return KeychainQuery(group: accessGroup, account: CacheKey.account(homeAccountID: homeAccountID, environment: environment))
    }

    /// Deletes every item of the user in this environment, whichever app wrote it: every app's
    /// tokens, the account records and the sign-in states. One delete, then the wipe record.
    ///
    /// - Parameter identifier: a home account ID or a username.
    /// - Returns: how many items were deleted.
    @discardableResult
    public func wipeAccount(_ identifier: String) throws(TokenCacheError) -> Int {
        let query = try wipeAccountQuery(identifier)
        return try journaled("token wipe-account", query: query.description, scope: query, items: try items(matching: query)) {
            () throws(TokenCacheError) in
            try deleteAll(query)
        }
    }

    /// MSAL's `wipeCacheForAllAccounts`: one delete of the whole group, every app's items
    /// included, then the wipe record naming this app. Any app of the group may do it; the
    /// SDK's headers warn it "will remove the SSO state from all apps sharing the same cache".
    ///
    /// - Returns: how many items were deleted.
    @discardableResult
    public func wipeCacheForAllAccounts() throws(TokenCacheError) -> Int {
        let query = KeychainQuery(group: accessGroup)
        return try journaled("token wipe", query: query.description, scope: query, items: try items(matching: query)) {
            () throws(TokenCacheError) in
            try deleteAll(query)
        }
    }

    /// Runs `deletion` between an intent and its end in the ``IntentJournal``, writing the wipe
    /// record (when `writesWipeRecord` says so) before the intent goes: a process killed at any
    /// point leaves either the wipe record or an intent that ``interruptedDeletions()`` reports.
    /// The store's policy is asked first: a refused deletion writes no intent and no record.
    ///
    /// - Parameters:
    ///   - query: the deletion as people read it, for the intent.
    ///   - scope: the keychain query whose matches include `items`, for the policy.
    ///   - items: what the deletion will delete.
    func journaled(
        _ operation: String, query: String, scope: KeychainQuery, items: [KeychainItem], writesWipeRecord: () -> Bool = { true },
        _ deletion: () throws(TokenCacheError) -> Int
    ) throws(TokenCacheError) -> Int {
        do { try keychain.authorizeDeletion(of: items, matching: scope) } catch { throw .keychain(error) }
        let journal = IntentJournal(store: keychain.store.journalStore, now: now)
        let intent: IntentJournal.Intent
        do {
            intent = try journal.begin(app: keychain.app.bundleID, operation: operation, group: accessGroup, query: query, items: items)
        } catch {
            throw .keychain(.storage(error))
        }
        let deleted = try deletion()
        FaultPoint.reached("after-delete")
        if writesWipeRecord() { try writeWipeRecord() }
        do { try journal.finish(intent) } catch { throw .keychain(.storage(error)) }
        return deleted
    }

    /// Deletions of this group's tokens that were interrupted (the process died between its
    /// intent and its end), with what each removed and what remains.
    public func interruptedDeletions() throws(TokenCacheError) -> [IntentJournal.Interrupted] {
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.accessGroupNames))
        }
        do { return try IntentJournal(store: keychain.store.journalStore).interrupted(group: accessGroup) } catch {
            throw .keychain(.storage(error))
        }
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

/// Who last deleted refresh tokens or wiped the group, and when. The SDKs write it after every
/// such deletion and read it back only to explain a later cache miss ("last wiped by X at T").
public struct WipeRecord: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The bundle ID of the app that deleted the tokens.
    public let bundleID: String
    /// When it deleted them.
    public let wipeTime: Date

    /// - Parameters: the app that wiped and when.
    public init(bundleID: String, wipeTime: Date) {
        self.bundleID = bundleID
        self.wipeTime = wipeTime
    }

    /// `last wiped by <bundle> at <ISO 8601 time>`, as the SDK's diagnostics say it.
    public var description: String { "last wiped by \(bundleID) at \(Self.format(wipeTime))" }

    /// `kSecAttrGeneric` of the record, as the SDKs write it.
    public static let generic = "Microsoft.ADAL.WipeAll.1"
    /// `kSecAttrAccount` of the record.
    public static let account = "TokenWipe"
    /// `kSecAttrService` of the record. The SDKs' layout names no service for it; the emulator
    /// uses the generic string, so the record has a stable primary key of its own.
    public static let service = generic

    static let layout = ItemLayout(account: account, service: service, generic: Data(generic.utf8), type: nil)

    /// `{"bundleId": ..., "wipeTime": "<ISO 8601, UTC>"}`.
    var data: Data {
        CacheJSON.data(["bundleId": .string(bundleID), "wipeTime": .string(Self.format(wipeTime))])
    }

    /// Reads a stored record; `wipeTime` may also be whole epoch seconds.
    init(data: Data) throws(FieldError) {
        guard let object = CacheJSON.object(from: data) else { throw FieldError("the value is not a JSON object") }
        let fields = FieldReader(object: object)
        bundleID = try fields.string("bundleId")
        if case .string(let text)? = object["wipeTime"], let date = try? Date(text, strategy: .iso8601) {
            wipeTime = date
        } else if let date = try fields.timestamp("wipeTime") {
            wipeTime = date
        } else {
            throw FieldError("'wipeTime' is missing")
        }
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
