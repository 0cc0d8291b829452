extension Keychain {
    /// A live stream of created, changed and deleted events for the items of `group`, or of
    /// every group the app may use when `group` is nil, as any app sharing the store makes them.
    ///
    /// Watching needs the same entitlement as reading: a group the app is not entitled to is
    /// errSecMissingEntitlement (-34018), and `$(AppIdentifierPrefix)` is expanded first. Events
    /// name items by group, account, service and creator; they never carry data. Cancel the
    /// returned watch when done (see `ItemWatch`).
    ///
    /// - Throws: ``KeychainError/missingEntitlement(group:app:entitled:)`` for a group the app
    ///   may not use; ``KeychainError/invalidParameter(_:)`` (errSecParam) when the store cannot
    ///   be watched (it does not conform to `ItemWatching`); the store's own failures.
    public func watch(group: String? = nil) throws(KeychainError) -> ItemWatch {
        let groups = try resolve(.all(in: group)).groups
        guard let watchable = store as? any ItemWatching else {
            throw .invalidParameter(
                "the '\(store.name)' store cannot be watched: it does not report changes (watching needs the Secret Service or the in-memory store)"
            )
        }
        do { return try watchable.watch(groups: groups) } catch { throw KeychainError(error) }
    }
}
