import Foundation
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
    @discardableResult
    ///
    /// Then the legacy accessor's part (`clearCacheForAccount`): ADAL's legacy
    /// items of the user's UPN whose client ID is this app's, each deleted by its key, the wipe
    /// record after each refresh token; the family's `foci-<fid>` copy survives. An ADAL app
    /// (`removeAllForUserId:clientId:`) deletes its legacy items first, then, through its other
    /// accessor, this client's MSAL-format credentials, and keeps no sign-in state.
    public func remove(account identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try snapshot()
        let userID = legacyUserID(identifier, in: snapshot)
        let legacy = try legacyRemovalTargets(userID: userID, clientID: clientID)
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
        let deleted = try journaled("token remove", query: query, scope: scope, items: items) {
            () throws(TokenCacheError) -> Int in
            switch configuration.sdk {
            case .msal: return try deleteCredentials(targets) + deleteLegacy(legacy, userID: userID ?? identifier)
            case .adal: return try deleteLegacy(legacy, userID: userID ?? identifier) + deleteCredentials(targets)
            }
        }
        if configuration.sdk == .msal { try updateSignInState(of: homeAccountID, to: .signedOut, legacy: snapshot) }
        return deleted
    }

    /// Deletes each credential by its key, the wipe record after each refresh token, as
    /// `removeCredential` does; returns how many were deleted.
    private func deleteCredentials(_ targets: [(item: KeychainItem, value: Credential)]) throws(TokenCacheError) -> Int {
        var deleted = 0
        for entry in targets {
            guard try deleteItem(entry.item) else { continue }
            deleted += 1
            if entry.value.type.isRefreshToken { try writeWipeRecord() }
        }
        return deleted
    }

    /// The credentials ``remove(account:)`` deletes: the account's, this client's, any environment.
    private func credentialsRemoved(for identifier: String, in snapshot: CacheSnapshot, anyClient: Bool = false) throws(TokenCacheError)
        -> (homeAccountID: String, targets: [(item: KeychainItem, value: Credential)])
    {
        guard let homeAccountID = snapshot.homeAccountID(named: identifier, environment: environment) else {
            throw .accountNotFound(identifier)
        }
        let home = CacheKey.normalized(homeAccountID)
        let client = CacheKey.normalized(clientID)
        let targets = snapshot.credentials.filter { entry in
            CacheKey.normalized(entry.value.homeAccountID) == home && (anyClient || CacheKey.normalized(entry.value.clientID) == client)
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
            let snapshot = try snapshot()
            let legacy = try legacyRemovalTargets(userID: legacyUserID(identifier, in: snapshot), clientID: clientID).map(\.item)
            return try credentialsRemoved(for: identifier, in: snapshot).targets.map(\.item) + legacy
        case .wipeAccount(let identifier):
            let snapshot = try snapshot()
            let legacy = try legacyUserID(identifier, in: snapshot).map { userID throws(TokenCacheError) in try legacyItems(userID: userID).map(\.item) } ?? []
            return try wipeAccountTargets(identifier, in: snapshot).items + legacy
        case .everything:
            return try items(matching: KeychainQuery(group: accessGroup))
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

    /// MSAL's sign-out with `wipeAccount` (`removeAccountImpl` with `wipeAccount:YES`: no client
    /// filter, `clearAccounts:YES`): every app's credentials of the user in any environment and
    /// the user's account records, one delete each (the wipe record after each refresh token),
    /// then `signed_out` in this client's account metadata; other clients' metadata is
    /// untouched. The SDK's header warns it "will remove the SSO state from all apps sharing the
    /// same cache".
    ///
    /// - Parameter identifier: a home account ID or a username.
    /// - Returns: how many items were deleted.
    @discardableResult
    ///
    /// Then every client's legacy items of the user's UPN, `foci-*` copies included, in one
    /// delete and one wipe record. An ADAL app
    /// (`wipeAllItemsForUserId:`) deletes the legacy items first, then every client's
    /// MSAL-format credentials of the user, keeps the account records and no sign-in state.
    public func wipeAccount(_ identifier: String) throws(TokenCacheError) -> Int {
        let snapshot = try snapshot()
        let userID = legacyUserID(identifier, in: snapshot)
        let legacy = try userID.map { userID throws(TokenCacheError) in try legacyItems(userID: userID).map(\.item) } ?? []
        let targets: (homeAccountID: String, credentials: [(item: KeychainItem, value: Credential)], accounts: [KeychainItem], items: [KeychainItem])
        do {
            targets = try wipeAccountTargets(identifier, in: snapshot)
        } catch .accountNotFound(let name) {
            guard !legacy.isEmpty else { throw .accountNotFound(name) }
            targets = (identifier, [], [], [])
        }
        let adal = configuration.sdk == .adal
        let description = "every client's credentials and the account records of \(DisplayText(targets.homeAccountID))"
        let deleted = try journaled("token wipe-account", query: description, scope: KeychainQuery(group: accessGroup), items: targets.items + legacy) {
            () throws(TokenCacheError) -> Int in
            var deleted = adal ? try wipeLegacy(userID: userID) : 0
            deleted += try deleteCredentials(targets.credentials)
            if !adal {
                for item in targets.accounts where try deleteItem(item) { deleted += 1 }
                deleted += try wipeLegacy(userID: userID)
            }
            return deleted
        }
        if !adal, !targets.credentials.isEmpty || !targets.accounts.isEmpty {
            try updateSignInState(of: targets.homeAccountID, to: .signedOut, legacy: snapshot)
        }
        return deleted
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
        let query = KeychainQuery(group: accessGroup)
        return try journaled("token wipe", query: query.description, scope: query, items: try items(matching: query)) {
            () throws(TokenCacheError) in
            let deleted = try deleteAll(query)
            _ = try deleteAll(query)
            return deleted
        }
    }

    /// Runs `deletion` between an intent and its end in the ``IntentJournal``: a process killed
    /// at any point leaves an intent that ``interruptedDeletions()`` reports. The intent is the
    /// emulator's record, outside the group; a device keeps none. The store's policy is asked
    /// first: a refused deletion writes no intent and no record.
    ///
    /// - Parameters:
    ///   - query: the deletion as people read it, for the intent.
    ///   - scope: the keychain query whose matches include `items`, for the policy.
    ///   - items: what the deletion will delete.
    func journaled(
        _ operation: String, query: String, scope: KeychainQuery, items: [KeychainItem],
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
        do { try journal.finish(intent, deleted: deleted) } catch { throw .keychain(.storage(error)) }
        return deleted
    }

    /// The emulator's record of the last finished deletions of this group's tokens (which app,
    /// which operation, how many items), oldest first. A device keeps none: on iOS nothing
    /// records which app deleted an item, and a full wipe deletes even MSAL's wipe record.
    public func deletionHistory() throws(TokenCacheError) -> [IntentJournal.Deletion] {
        guard keychain.app.isEntitled(to: accessGroup) else {
            throw .keychain(.missingEntitlement(
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.accessGroupNames))
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
                group: accessGroup, app: keychain.app.bundleID, entitled: keychain.app.accessGroupNames))
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
        guard let item = try items(matching: WipeRecord.query(in: accessGroup)).first else { return nil }
        do {
            return try WipeRecord(data: item.data)
        } catch {
            reportSkipped(item, reason: error.reason)
            return nil
        }
    }
}

/// Who last deleted refresh tokens, and when: MSAL's wipe record (IdentityCore
/// `MSIDKeychainTokenCache.m` `saveWipeInfoWithContext`, `wipeInfo:`). Account `TokenWipe`,
/// generic `Microsoft.ADAL.WipeAll.1`, no service, no type, `afterFirstUnlockThisDeviceOnly`;
/// its data an `NSKeyedArchiver` archive (secure coding) of the dictionary `{bundleId: NSString,
/// wipeTime: NSDate}`, so a tool that reads the SDK's record reads this one. Written after every
/// refresh-token delete; a full wipe deletes it with everything else. The SDK reads it only for
/// telemetry when a cache lookup finds nothing.
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
    public var description: String { "last wiped by \(DisplayText(bundleID)) at \(Self.format(wipeTime))" }

    /// `kSecAttrGeneric` of the record, as the SDKs write it.
    public static let generic = "Microsoft.ADAL.WipeAll.1"
    /// `kSecAttrAccount` of the record.
    public static let account = "TokenWipe"
    /// `kSecAttrService` of the record: none (Apple's empty default).
    public static let service = ""

    static let layout = ItemLayout(account: account, service: service, generic: Data(generic.utf8), type: nil)

    /// The SDK's `defaultWipeQuery`: account and generic, no service.
    static func query(in group: String) -> KeychainQuery {
        KeychainQuery(group: group, account: account, generic: Data(generic.utf8))
    }

    /// Whether `item` is a wipe record (the SDK's, or one of this emulator's earlier layout,
    /// whose service was the generic string).
    static func isRecord(_ item: KeychainItem) -> Bool {
        item.account == account && item.generic == Data(generic.utf8)
    }

    /// The record as the SDK archives it.
    func archive() throws(TokenCacheError) -> Data {
        let dictionary = NSDictionary(dictionary: ["bundleId": NSString(string: bundleID), "wipeTime": NSDate(timeIntervalSince1970: wipeTime.timeIntervalSince1970)])
        do {
            return try NSKeyedArchiver.archivedData(withRootObject: dictionary, requiringSecureCoding: true)
        } catch {
            throw .invalidArgument("cannot archive the wipe record: \(error)")
        }
    }

    /// Reads a stored record: the SDK's keyed archive (with ``KeyedArchive``'s checks and
    /// limits, never `NSKeyedUnarchiver`), or the JSON this emulator wrote before (`wipeTime` as
    /// ISO 8601 or epoch seconds), which the next write converts.
    init(data: Data) throws(FieldError) {
        do throws(ItemDecodingError) {
            let archived = try KeyedArchive.root(of: data, allowing: Self.archivedClasses)
            guard case .dictionary = archived else { throw .wrongType(key: NSKeyedArchiveRootObjectKey, expected: "a dictionary", found: archived.kindName) }
            guard let bundle = try archived.string("bundleId") else { throw .malformed("the archive has no 'bundleId' string") }
            guard let date = try archived.date("wipeTime") else { throw .malformed("the archive has no 'wipeTime' date") }
            bundleID = bundle
            wipeTime = date
            return
        } catch .notAnArchive {
            // Not a keyed archive: the emulator's earlier JSON, below.
        } catch {
            throw FieldError(error.reason)
        }
        guard let object = CacheJSON.object(from: data) else {
            throw FieldError("the value is neither an NSKeyedArchiver archive nor this emulator's earlier JSON")
        }
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

    /// The classes the record's archive may hold (`wipeInfo:`'s secure-coding classes).
    static let archivedClasses: Set<String> = ["NSDictionary", "NSMutableDictionary", "NSString", "NSMutableString", "NSDate"]

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
