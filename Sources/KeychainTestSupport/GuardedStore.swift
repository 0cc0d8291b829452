import Foundation
import KeychainStorage
import SecretServiceStorage

/// A ``SecretServiceStore`` on the shared test keyring whose every operation waits while a test
/// holds ``TestKeyring/withExclusiveAccess(_:)``.
public final class GuardedStore: ItemStore {
    /// The store itself, for what only it offers (`lock(groups:)`, `collectionPath(forGroup:)`).
    public let base: SecretServiceStore

    /// The base store's name.
    public var name: String { base.name }

    init(base: SecretServiceStore) { self.base = base }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func add(_ item: StoredItem) throws(StorageError) {
        try AccessLock.shared.shared { () throws(StorageError) in try base.add(item) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try AccessLock.shared.shared { () throws(StorageError) in try base.items(matching: query, limit: limit) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try AccessLock.shared.shared { () throws(StorageError) in try base.update(matching: query, with: change, at: date) }
    }

    /// ``SecretServiceStore``'s, once no test holds exclusive access.
    public func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        try AccessLock.shared.shared { () throws(StorageError) in try base.delete(matching: query) }
    }
}
