import Foundation
import KeychainStorage
import Synchronization

/// Passes every call to another store and counts them: how many round trips an operation costs.
final class CountingStore: ItemStore {
    let base: any ItemStore
    private let counts = Mutex<[String: Int]>([:])

    init(_ base: any ItemStore) { self.base = base }

    var name: String { base.name }
    var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    /// Calls so far, by operation (`add`, `items`, `update`, `delete`).
    var calls: [String: Int] { counts.withLock { $0 } }
    var total: Int { calls.values.reduce(0, +) }
    func reset() { counts.withLock { $0 = [:] } }

    private func count(_ operation: String) { counts.withLock { $0[operation, default: 0] += 1 } }

    func add(_ item: StoredItem) throws(StorageError) {
        count("add")
        try base.add(item)
    }

    func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        count("items")
        return try base.items(matching: query, limit: limit)
    }

    func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        count("update")
        return try base.update(matching: query, with: change, at: date)
    }

    func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        count("delete")
        return try base.delete(matching: query)
    }
}
