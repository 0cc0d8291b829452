import Foundation
import SharedKeychain
import Synchronization

/// An item of the group a read left out because its value cannot be decoded: the SDK logs such
/// an item and skips it (IdentityCore `MSIDKeychainTokenCache`, `MSIDLegacyTokenCacheAccessor`),
/// and goes on with the others. Names where the item is and why, never its data.
public struct SkippedItem: Sendable, Hashable, Codable {
    public let group: String
    public let account: String
    public let service: String
    /// Why the value cannot be used (`the archive's objects refer to themselves in a cycle`).
    public let reason: String

    public init(group: String, account: String, service: String, reason: String) {
        self.group = group
        self.account = account
        self.service = service
        self.reason = reason
    }

    init(_ item: KeychainItem, reason: String) {
        self.init(group: item.group, account: item.account, service: item.service, reason: reason)
    }
}

/// Where a token cache reports the items it skips (``TokenCacheConfiguration/skippedItems``):
/// each item once, however often a command reads it. Compared by identity, so the
/// configuration stays `Hashable`.
public final class SkippedItemReport: Sendable, Hashable {
    /// The keys reported so far, and the items in the order they were first skipped.
    private let reported = Mutex<(keys: Set<PrimaryKey>, items: [SkippedItem])>(([], []))
    private let first: @Sendable (SkippedItem) -> Void

    /// - Parameter first: called the first time each item is skipped, on the calling thread
    ///   (the CLI prints it on standard error).
    public init(_ first: @escaping @Sendable (SkippedItem) -> Void = { _ in }) {
        self.first = first
    }

    /// The items skipped so far, each once, in the order they were first skipped.
    public var items: [SkippedItem] { reported.withLock { $0.items } }

    func report(_ item: KeychainItem, reason: String) {
        let skipped = SkippedItem(item, reason: reason)
        let isNew = reported.withLock { reported in
            guard reported.keys.insert(item.primaryKey).inserted else { return false }
            reported.items.append(skipped)
            return true
        }
        if isNew { first(skipped) }
    }

    public static func == (lhs: SkippedItemReport, rhs: SkippedItemReport) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
