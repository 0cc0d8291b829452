import Foundation

/// A place that keeps generic-password items: the Secret Service, or memory.
///
/// Every backend gives the same guarantees, checked by one conformance suite:
/// - `add` is atomic with respect to the primary key, across threads and (for backends shared
///   between processes) across processes: of two concurrent adds of one key, one fails with
///   ``StorageError/duplicateItem(_:)``;
/// - results come in creation order;
/// - a locked store is ``StorageError/locked(collection:)``, never an empty result.
public protocol ItemStore: Sendable {
    /// A short name for messages and reports (`memory`, `secret-service`).
    var name: String { get }

    /// Adds `item`; fails with `duplicateItem` when its primary key is taken.
    func add(_ item: StoredItem) throws(StorageError)

    /// The items matching `query`, at most `limit` of them (`nil`: all), in creation order.
    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem]

    /// Applies `change` to every item matching `query`; returns how many changed. When the
    /// change would make two items share a primary key nothing changes and it fails with
    /// `duplicateItem`.
    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int

    /// Deletes every item matching `query`; returns how many were deleted.
    func delete(matching query: ItemQuery) throws(StorageError) -> Int
}

/// A store that reconnects to a service it lost (a restarted daemon), and counts how often, so
/// a load report can say how many reconnects a run saw.
public protocol ReconnectReporting: Sendable {
    /// Reconnections since the store was made.
    var reconnects: Int { get }
}
