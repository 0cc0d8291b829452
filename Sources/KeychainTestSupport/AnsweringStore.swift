import Foundation
import KeychainStorage

/// `base` inside a device that answers access-control prompts with `userAuthentication`: for
/// tests of a store without a device of its own (a device's store gets the device's answer from
/// `Device.openStore`).
public final class AnsweringStore: ItemStore {
    let base: any ItemStore
    public let userAuthentication: AuthenticationProvider?
    public var name: String { base.name }

    public init(base: any ItemStore, userAuthentication: @escaping AuthenticationProvider) {
        self.base = base
        self.userAuthentication = userAuthentication
    }

    public func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }

    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try base.items(matching: query, limit: limit)
    }

    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }

    public func delete(matching query: ItemQuery) throws(StorageError) -> Int { try base.delete(matching: query) }
}
