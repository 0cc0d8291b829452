@_exported import KeychainStorage
import Foundation

/// An item (a generic or internet password, or a key) as the keychain returns it: attributes and data.
public typealias KeychainItem = StoredItem

/// One app's view of the shared keychain, with Keychain Services semantics for generic
/// passwords:
/// - an add without a group goes to the app's first group; naming a group the app is not
///   entitled to is errSecMissingEntitlement, for every operation;
/// - copy, update and delete without a group act on all the app's groups, and delete removes
///   every match;
/// - the primary key is account + service + group: a second add is errSecDuplicateItem.
///
/// It reproduces Apple faithfully, the dangerous parts included: any entitled app may delete a
/// whole group, and nothing here stops it.
public struct Keychain: Sendable {
    public let app: AppIdentity
    public let store: any ItemStore
    /// The device's fault plan, asked before each SecItem call runs; nil: no faults.
    public let faults: (any KeychainFaultSource)?
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - app: who the calls act as: its groups decide what it reaches.
    ///   - store: where the items live (memory, or a Secret Service). When an item's access
    ///     control asks the user, the store's device answers (`ItemStore.userAuthentication`;
    ///     `Device.openStore` gives its store the device's answer): a keychain on a device's
    ///     store always asks that device, however it is made.
    ///   - now: the clock for creation and modification dates.
    ///   - faults: the device's fault plan: a call it fails returns the rule's status
    ///     (``KeychainError/injected(_:)``) before anything is read or written.
    public init(
        app: AppIdentity, store: any ItemStore, now: @escaping @Sendable () -> Date = { Date() }, faults: (any KeychainFaultSource)? = nil
    ) {
        self.app = app
        self.store = store
        self.now = now
        self.faults = faults
    }

    /// The device's answer when an item's access control asks the user: the store's; nil for a
    /// store without a device, which always allows.
    public var authentication: AuthenticationProvider? { store.userAuthentication }

    /// `SecItemAdd`. Returns the item as stored: with the creator and type the caller gave (none
    /// unless given, as on a device), and the emulator's provenance naming this app.
    @discardableResult
    public func add(_ new: NewItem) throws(KeychainError) -> KeychainItem {
        // No group: the first of the app's list, a wildcard entry literally (`ABCDE12345.*`), as
        // securityd takes the first entry of the list it derives from the entitlements.
        let group = if let named = new.group { try entitled(named) } else { try defaultGroup() }
        try injectFault(.add, groups: [group])
        let date = now()
        // Only a generic password has a service; a key has no account either.
        let service = new.internet == nil && new.key == nil ? new.service : ""
        let item = KeychainItem(
            group: group, account: new.key == nil ? new.account : "", service: service, generic: new.generic, type: new.type,
            label: new.label, comment: new.comment, itemDescription: new.itemDescription, creator: new.creator,
            provenance: Provenance(addedBy: app.bundleID), creationDate: date, modificationDate: date, data: new.data, accessibility: new.accessibility,
            synchronizable: new.synchronizable, accountIsData: new.accountIsData,
            serviceIsData: new.internet == nil && new.key == nil && new.serviceIsData, internet: new.key == nil ? new.internet : nil,
            accessControl: new.accessControl, key: new.key)
        do { try store.add(item) } catch { throw KeychainError(error) }
        return item
    }

    /// `SecItemCopyMatching`: the first match, or every match with `.all`, in creation order.
    /// Nothing found is errSecItemNotFound.
    public func copyMatching(_ query: KeychainQuery, limit: MatchLimit = .one) throws(KeychainError) -> [KeychainItem] {
        try copyMatching(query, limit: limit, returningData: true, authenticationUI: .allow)
    }

    /// `SecItemCopyMatching` with its authentication options: when the data is returned, an
    /// item whose access control asks the user is asked for (``AuthenticationUI``): the
    /// device's answer decides (errSecAuthFailed, errSecUserCanceled), or with `.fail` it is
    /// errSecInteractionNotAllowed; with `.skip` such items are left out. Without the data
    /// (`kSecReturnAttributes` alone) the items come back with empty data, as SecItem returns
    /// none: no item's data leaves the keychain unasked.
    public func copyMatching(
        _ query: KeychainQuery, limit: MatchLimit, returningData: Bool, authenticationUI: AuthenticationUI
    ) throws(KeychainError) -> [KeychainItem] {
        var scoped = try resolve(query, reading: true)
        try injectFault(.copyMatching, groups: scoped.groups)
        if authenticationUI == .skip { scoped.filters.asksUser = false }
        let found: [KeychainItem]
        do { found = try store.items(matching: scoped, limit: limit.count) } catch { throw KeychainError(error) }
        guard !found.isEmpty else { throw .itemNotFound(query: query.description) }
        guard returningData else { return found.map(\.withoutData) }
        try authorize(found, ui: authenticationUI)
        return found
    }

    /// Every match in creation order (at most `limit`); an empty array when nothing matches (a
    /// listing, where "none" is an answer rather than an error). Attributes alone, with empty
    /// data, unless `returningData`, which asks for items whose access control asks the user as
    /// ``copyMatching(_:limit:returningData:authenticationUI:)`` does.
    public func copyAll(_ query: KeychainQuery, limit: MatchLimit = .all, returningData: Bool = false) throws(KeychainError) -> [KeychainItem] {
        do {
            return try copyMatching(query, limit: limit, returningData: returningData, authenticationUI: .allow)
        } catch .itemNotFound {
            return []
        }
    }

    /// `SecItemCopyMatching` with `kSecMatchLimitOne`.
    public func first(_ query: KeychainQuery) throws(KeychainError) -> KeychainItem {
        // copyMatching never returns an empty array.
        try copyMatching(query, limit: .one)[0]
    }

    /// `SecItemUpdate`: changes every match; returns how many changed.
    @discardableResult
    public func update(_ query: KeychainQuery, with change: ItemChange) throws(KeychainError) -> Int {
        try update(query, with: change, authenticationUI: .allow)
    }

    /// `SecItemUpdate` with its authentication options: updating an item whose access control
    /// asks the user asks for it, as iOS does (see ``copyMatching(_:limit:returningData:authenticationUI:)``).
    @discardableResult
    public func update(_ query: KeychainQuery, with change: ItemChange, authenticationUI: AuthenticationUI) throws(KeychainError) -> Int {
        guard !change.isEmpty else { throw .invalidParameter("an update must set at least one attribute or the data") }
        var scoped = try resolve(query)
        try injectFault(.update, groups: scoped.groups)
        if authenticationUI == .skip {
            scoped.filters.asksUser = false
        } else if mustCheckAuthentication(authenticationUI) {
            var protected = scoped
            protected.filters.asksUser = true
            let found: [KeychainItem]
            do { found = try store.items(matching: protected, limit: 1) } catch { throw KeychainError(error) }
            try authorize(found, ui: authenticationUI)
        }
        var recorded = change
        recorded.modifiedBy = app.bundleID
        let changed: Int
        do { changed = try store.update(matching: scoped, with: recorded, at: now()) } catch { throw KeychainError(error) }
        guard changed > 0 else { throw .itemNotFound(query: query.description) }
        return changed
    }

    /// `SecItemDelete`: removes every match; returns how many. Nothing found is errSecItemNotFound.
    @discardableResult
    public func delete(_ query: KeychainQuery) throws(KeychainError) -> Int {
        let scoped = try resolve(query)
        try injectFault(.delete, groups: scoped.groups)
        let deleted: Int
        do { deleted = try store.delete(matching: scoped) } catch { throw KeychainError(error) }
        guard deleted > 0 else { throw .itemNotFound(query: query.description) }
        return deleted
    }

    /// Asks the store, before anything is written, whether a deletion of `items` (what `query`
    /// matches now) would be allowed: a policy around the store (guarded delete) refuses it
    /// here, and the caller writes no intent and no record of a deletion that never happens.
    public func authorizeDeletion(of items: [KeychainItem], matching query: KeychainQuery) throws(KeychainError) {
        let scoped = try resolve(query)
        do { try store.authorizeDeletion(of: items, matching: scoped) } catch { throw KeychainError(error) }
    }

    /// The storage query for `query`: its group checked against the app's entitlements, or all
    /// the app's groups when it names none. `reading` allows ``AppIdentity/tokenGroup``.
    func resolve(_ query: KeychainQuery, reading: Bool = false) throws(KeychainError) -> ItemQuery {
        guard app.hasKeychainEntitlement else { throw .noKeychainEntitlement(app: app.bundleID) }
        let groups = try query.group.map { (group) throws(KeychainError) in [try entitled(group, reading: reading)] }
            ?? app.accessGroupNames
        return ItemQuery(
            groups: groups, account: query.account, service: query.service, generic: query.generic, type: query.type,
            filters: query.filters)
    }

    /// Fails the call with the fault the device's plan has for it, if any: after the call's
    /// groups are checked (a group the app is not entitled to is its own answer), before the
    /// store is touched.
    func injectFault(_ function: SecItemFunction, groups: [String]) throws(KeychainError) {
        if let fault = faults?.fault(for: function, groups: groups, app: app.bundleID) { throw .injected(fault) }
    }

    /// Where an add without a group goes: the app's first group.
    private func defaultGroup() throws(KeychainError) -> String {
        guard let first = app.accessGroups.first else { throw .noKeychainEntitlement(app: app.bundleID) }
        return first.rawValue
    }

    /// `group` in full if the app is entitled to it; `$(AppIdentifierPrefix)` is expanded first.
    /// The match is literal: a wildcard entry grants only the group of that exact name. CryptoTokenKit's
    /// group may be read, never written.
    func entitled(_ group: String, reading: Bool = false) throws(KeychainError) -> String {
        guard app.hasKeychainEntitlement else { throw .noKeychainEntitlement(app: app.bundleID) }
        var full = group
        for variable in AccessGroup.prefixVariables where full.hasPrefix(variable) {
            full = app.teamID.rawValue + "." + full.dropFirst(variable.count)
        }
        guard app.isEntitled(to: full) || (reading && full == AppIdentity.tokenGroup) else {
            throw .missingEntitlement(group: group, app: app.bundleID, entitled: app.deviceAccessGroupList)
        }
        return full
    }
}

extension Keychain {
    /// A live stream of created, changed and deleted events for the items of `group`, or of
    /// every group the app may use when `group` is nil, as any app sharing the store makes them.
    ///
    /// Watching needs the same entitlement as reading: a group the app is not entitled to is
    /// errSecMissingEntitlement (-34018), and `$(AppIdentifierPrefix)` is expanded first. Events
    /// name items by group, account, service and who added them (the emulator's record); they
    /// never carry data. Cancel the
    /// returned watch when done (see `ItemWatch`).
    ///
    /// - Throws: ``KeychainError/missingEntitlement(group:app:entitled:)`` for a group the app
    ///   may not use; ``KeychainError/invalidParameter(_:)`` (errSecParam) when the store cannot
    ///   be watched (it does not conform to `ItemWatching`); the store's own failures.
    public func watch(group: String? = nil) throws(KeychainError) -> ItemWatch {
        let groups = try resolve(.all(in: group), reading: true).groups
        guard let watchable = store as? any ItemWatching else {
            throw .invalidParameter(
                "the '\(store.name)' store cannot be watched: it does not report changes (watching needs the Secret Service or the in-memory store)"
            )
        }
        do { return try watchable.watch(groups: groups) } catch { throw KeychainError(error) }
    }
}
