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
    public static func journalGroup(for group: String) -> String { group + AccessGroup.auditJournalSuffix }

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
            type: nil, label: "audit: \(entry.app) \(entry.operation)", provenance: Provenance(addedBy: "sharedkeychain.audit"),
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

/// One destructive operation in an audited group, as the journal keeps it. Never holds item
/// data: the query is described by its attributes, and counts say what it touched.
public struct AuditEntry: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened to the operation.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// The store deleted the items.
        case deleted
        /// Guarded delete refused it; nothing was deleted.
        case refused
        /// Items were put back from a snapshot.
        case restored
        /// A snapshot of the group was taken (it holds the group's secrets).
        case taken
        /// The journal was read.
        case viewed
    }

    /// When the operation ran.
    public var time: Date
    /// The bundle ID of the app that asked, or `device-owner` for `--admin`.
    public var app: String
    /// `delete`, `snapshot`, `restore` or `audit`.
    public var operation: String
    /// The audited group.
    public var group: String
    /// The query, as attributes (`service 'x' in groups A, B`), never data.
    public var query: String
    /// How many items of the group the operation matched.
    public var itemCount: Int
    /// Of those, how many each app had added (who lost what), by the emulator's provenance: a
    /// device keeps no such record (``Provenance/note``). Journals written before provenance
    /// kept it as `creators`, which reads the same.
    public var addedBy: [String: Int]
    /// Whether it went through.
    public var outcome: Outcome
    /// True when the app was not installed on the device but declared ad hoc (`--team`,
    /// `--entitlements`): nothing vouches for its bundle ID. Absent (nil) otherwise.
    public var adHoc: Bool?

    /// - Parameters: see the properties.
    public init(
        time: Date, app: String, operation: String, group: String, query: String, itemCount: Int, addedBy: [String: Int],
        outcome: Outcome, adHoc: Bool = false
    ) {
        self.time = time
        self.app = app
        self.operation = operation
        self.group = group
        self.query = query
        self.itemCount = itemCount
        self.addedBy = addedBy
        self.outcome = outcome
        self.adHoc = adHoc ? true : nil
    }

    private enum CodingKeys: String, CodingKey {
        case time, app, operation, group, query, itemCount, addedBy, outcome, adHoc
        /// The key of journals written before provenance.
        case creators
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Date.self, forKey: .time)
        app = try container.decode(String.self, forKey: .app)
        operation = try container.decode(String.self, forKey: .operation)
        group = try container.decode(String.self, forKey: .group)
        query = try container.decode(String.self, forKey: .query)
        itemCount = try container.decode(Int.self, forKey: .itemCount)
        addedBy = try container.decodeIfPresent([String: Int].self, forKey: .addedBy)
            ?? container.decodeIfPresent([String: Int].self, forKey: .creators) ?? [:]
        outcome = try container.decode(Outcome.self, forKey: .outcome)
        adHoc = try container.decodeIfPresent(Bool.self, forKey: .adHoc)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(app, forKey: .app)
        try container.encode(operation, forKey: .operation)
        try container.encode(group, forKey: .group)
        try container.encode(query, forKey: .query)
        try container.encode(itemCount, forKey: .itemCount)
        try container.encode(addedBy, forKey: .addedBy)
        try container.encode(outcome, forKey: .outcome)
        try container.encodeIfPresent(adHoc, forKey: .adHoc)
    }

    /// `2026-11-22T04:50:02Z com.contoso.calendar delete (refused) in G: 7 items (added by
    /// com.contoso.mail 7, as the emulator recorded it), query: ...`.
    public var description: String {
        let owners = addedBy.sorted { $0.key < $1.key }.map { "\(DisplayText($0.key)) \($0.value)" }.joined(separator: ", ")
        return "\(time.formatted(.iso8601)) \(DisplayText(app))\(adHoc == true ? " (ad-hoc)" : "") \(operation) (\(outcome.rawValue)) in \(DisplayText(group)): \(itemCount.counted("item"))"
            + (owners.isEmpty ? "" : " (added by \(owners), as the emulator recorded it)") + ", query: \(query)"
    }
}
