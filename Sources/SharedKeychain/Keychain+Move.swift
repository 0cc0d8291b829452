import Foundation

extension Keychain {
    /// `SecItemUpdate` with `kSecAttrAccessGroup` in the attributes to update: every item
    /// `query` matches moves to `group` (with `change` applied too), the migration teams run
    /// before an app transfer. Apple documents `kSecAttrAccessGroup` as an attribute an update
    /// may set, and its forum answers (Quinn "The Eskimo!", "Sharing keychain items between
    /// apps") describe moving an item by updating it with the new group, allowed only when the
    /// app is entitled to both.
    ///
    /// The target group is checked first: a group the app is not entitled to is -34018 and
    /// nothing changes. An item already in `group` is only changed. An item of the target that
    /// already holds a moved item's primary key is errSecDuplicateItem (-25299), and nothing
    /// changes. The move is a copy into the target and a removal from the source; a failure
    /// between them undoes what was copied. Another app reading at that moment may see an item
    /// in both groups (the store has no transaction spanning two groups).
    ///
    /// - Parameters:
    ///   - query: which items move; its group, if any, must be entitled too.
    ///   - group: the target access group; `$(AppIdentifierPrefix)` is expanded.
    ///   - change: other attributes the same update sets.
    ///   - authenticationUI: what an item whose access control asks the user does, as for
    ///     ``update(_:with:authenticationUI:)``.
    /// - Returns: how many items moved or changed.
    /// - Throws: ``KeychainError/missingEntitlement(group:app:entitled:)``,
    ///   ``KeychainError/itemNotFound(query:)``, ``KeychainError/duplicateItem(_:)``, the
    ///   authentication failures and the store's own.
    @discardableResult
    public func move(
        _ query: KeychainQuery, toGroup group: String, with change: ItemChange = ItemChange(), authenticationUI: AuthenticationUI = .allow
    ) throws(KeychainError) -> Int {
        guard change.ifVersion == nil else {
            throw .invalidParameter("a move cannot be conditional (ifVersion): it is not a compare-and-swap; update the version first, then move")
        }
        let target = try entitled(group)
        var scoped = try resolve(query)
        if authenticationUI == .skip { scoped.filters.asksUser = false }
        let found: [KeychainItem]
        do { found = try store.items(matching: scoped, limit: nil) } catch { throw KeychainError(error) }
        guard !found.isEmpty else { throw .itemNotFound(query: query.description) }
        if authenticationUI != .skip { try authorize(found, ui: authenticationUI) }
        var recorded = change
        recorded.modifiedBy = app.bundleID
        let date = now()
        var copied: [KeychainItem] = []
        do throws(StorageError) {
            for item in found where item.group != target {
                var moved = recorded.applied(to: item, at: date)
                moved.group = target
                try store.add(moved)
                copied.append(moved)
            }
        } catch {
            undo(copied)
            throw KeychainError(error)
        }
        do throws(StorageError) {
            for item in found where item.group != target {
                _ = try store.delete(matching: Self.exactly(item))
            }
            for item in found where item.group == target && !change.isEmpty {
                _ = try store.update(matching: Self.exactly(item), with: recorded, at: date)
            }
        } catch {
            throw KeychainError(error)
        }
        return found.count
    }

    /// Removes what a failed move copied into its target; best effort, as the failure being
    /// reported is the caller's answer.
    private func undo(_ copied: [KeychainItem]) {
        for item in copied { _ = try? store.delete(matching: Self.exactly(item)) }
    }

    /// A query for `item`'s primary key alone.
    static func exactly(_ item: KeychainItem) -> ItemQuery {
        let key = item.key.map {
            KeyFields(
                keyClass: $0.keyClass, applicationLabel: $0.applicationLabel, applicationTag: $0.applicationTag, keyType: $0.keyType,
                keySizeInBits: $0.keySizeInBits, effectiveKeySize: $0.effectiveKeySize)
        } ?? KeyFields()
        return ItemQuery(
            groups: [item.group], account: item.account, service: item.service,
            filters: ItemQuery.Filters(
                synchronizable: item.synchronizable, itemClass: item.itemClass, internet: item.internet.map { InternetFields($0) } ?? InternetFields(),
                key: key))
    }
}
