import Foundation
import KeychainStorage

extension SecretServiceStore: ItemWatching {
    /// Watches `groups` in the Secret Service: changes made by any process sharing the keyring
    /// (this one included) are reported as they happen, from the daemon's D-Bus signals.
    ///
    /// Returns once subscribed, after one listing of the groups (one path search per group and
    /// one `GetSecrets`, as ``items(matching:limit:)``) that gives the watch the attributes of
    /// the items already there, so their deletion can be reported too. A locked collection is
    /// ``StorageError/locked(collection:)``, as for every other operation.
    ///
    /// Events are stamped with the time this process received the signal. An update that
    /// changes an item's searchable attributes rewrites it, and is reported as `created` (the
    /// new version) and `deleted` (the old one); one that changes only data or label is
    /// `changed`. An item created while this call is still listing may be reported as
    /// `changed`: the listing already knew it. Each watch runs a thread of its own until it is
    /// cancelled.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        let groups = Self.unique(groups)
        guard !groups.isEmpty else {
            throw .backend(domain: "shared-keychain", code: 0, message: "watch: no access group to watch")
        }
        return try ItemSignalWatcher.start(groups: groups, client: client, logger: configuration.logger) {
            () throws(StorageError) in
            try self.perform("watch") { service in
                try self.fetch(ItemQuery(groups: groups), writing: false, service).compactMap { found in
                    ItemSignalWatcher.KnownItem(attributes: ItemAttributes.of(found.envelope.item))
                        .map { (path: found.path, item: $0) }
                }
            }
        }
    }
}
