import Foundation
import SharedKeychain

/// The journal of destructive operations of audited groups, kept as items of a dedicated group
/// in the same store as the group it audits.
///
/// Why in the store rather than in a file: every process that shares the items (CLI commands on
/// the private keyring, apps of a suite) shares the journal with no extra coordination, each
/// entry is one atomic add under a unique key, and the journal group is named in no app's
/// entitlements, so an app that wipes the audited group cannot erase its own trail.
public struct AuditJournal: Sendable {
    /// The store holding both the audited group and its journal.
    public let store: any ItemStore

    /// The `service` of every journal item.
    public static let service = "sharedkeychain.audit"

    /// - Parameter store: the store of the audited groups (not a mitigated wrapper).
    public init(store: any ItemStore) {
        self.store = store
    }

    /// The group holding the journal of `group`: `<group>.sharedkeychain-audit`.
    public static func journalGroup(for group: String) -> String { "\(group).sharedkeychain-audit" }

    /// Appends `entry` to its group's journal.
    public func append(_ entry: AuditEntry) throws(StorageError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do { data = try encoder.encode(entry) } catch {
            throw .backend(domain: "AuditJournal", code: 1, message: "cannot encode an audit entry: \(error)")
        }
        let stamp = entry.time.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
        try store.add(StoredItem(
            group: Self.journalGroup(for: entry.group), account: "\(stamp)-\(UUID().uuidString)", service: Self.service,
            type: nil, label: "audit: \(entry.app) \(entry.operation)", creator: "sharedkeychain.audit",
            creationDate: entry.time, modificationDate: entry.time, data: data))
    }

    /// Every entry of `group`'s journal, oldest first.
    public func entries(group: String) throws(StorageError) -> [AuditEntry] {
        let items = try store.items(matching: ItemQuery(groups: [Self.journalGroup(for: group)], service: Self.service), limit: nil)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var entries: [AuditEntry] = []
        for item in items {
            do { entries.append(try decoder.decode(AuditEntry.self, from: item.data)) } catch {
                throw .corruptItem(location: item.primaryKey.description, reason: "not an audit entry")
            }
        }
        return entries
    }

    /// Deletes `group`'s journal; returns how many entries it held.
    @discardableResult
    public func clear(group: String) throws(StorageError) -> Int {
        try store.delete(matching: ItemQuery(groups: [Self.journalGroup(for: group)]))
    }
}
