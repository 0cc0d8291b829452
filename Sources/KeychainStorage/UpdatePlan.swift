import Foundation

/// What an update does to the items it matched, worked out before anything is written, so a
/// backend can refuse a change that would give two items one primary key, or a compare-and-swap
/// whose item moved on, and change nothing.
public struct UpdatePlan: Sendable {
    /// Each matched item with its replacement, in the order they were matched.
    public let replacements: [(old: StoredItem, new: StoredItem)]

    /// - Parameter isTaken: whether an item outside `matched` already holds the key.
    public init(
        matched: [StoredItem],
        change: ItemChange,
        at date: Date,
        isTaken: (PrimaryKey) throws(StorageError) -> Bool
    ) throws(StorageError) {
        if let expected = change.ifVersion, let stale = matched.first(where: { $0.version != expected }) {
            throw .versionConflict(stale.primaryKey, expected: expected, found: stale.version)
        }
        let replacements = matched.map { (old: $0, new: change.applied(to: $0, at: date)) }
        if change.touchesPrimaryKey {
            let vacated = Set(matched.map(\.primaryKey))
            var claimed = Set<PrimaryKey>()
            for (_, new) in replacements {
                let key = new.primaryKey
                guard claimed.insert(key).inserted else { throw .duplicateItem(key) }
                if !vacated.contains(key), try isTaken(key) { throw .duplicateItem(key) }
            }
        }
        self.replacements = replacements
    }
}
