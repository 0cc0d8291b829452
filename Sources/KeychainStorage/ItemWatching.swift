/// A store that can report changes to the items of some access groups as they happen.
///
/// Every watching store reports the same events for the same operations:
/// - `add` is one ``ItemEvent/Kind/created`` event;
/// - an `update` that keeps the item's searchable attributes (data or label changes) is one
///   ``ItemEvent/Kind/changed`` event per item; one that changes them (account, service,
///   generic or type) may be reported as `changed` (memory) or as `created` for the new
///   version and `deleted` for the old one (Secret Service, which rewrites such an item);
/// - `delete` is one ``ItemEvent/Kind/deleted`` event per item, whole-group deletes included.
///
/// A watch sees changes made by every user of the store: other threads, and for a shared
/// store such as the Secret Service, other processes. It reports only items of the groups it
/// watches, and never their data.
public protocol ItemWatching: ItemStore {
    /// Subscribes to changes in `groups` (full access-group names, at least one) and returns
    /// once subscribed: every change made after the call returns is reported.
    func watch(groups: [String]) throws(StorageError) -> ItemWatch
}
