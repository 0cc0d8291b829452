import Foundation

/// Write-ahead records of deletions, so that none goes unrecorded even when the process dies
/// half-way: the intent (who, what, when, and the keys it is about to delete) is written first,
/// then the items are deleted, then the outcome is recorded (audit entry, wipe record) and the
/// intent is removed. An intent still present afterwards is an interrupted deletion, and
/// ``interrupted(group:)`` says which of its items are gone and which remain.
///
/// Intents live as items of `<group>.sharedkeychain-intents` in the same store as the group they
/// are about: every process sharing the store sees them, each is one atomic add under a unique
/// key, and no app is entitled to that group, so an app wiping the group cannot erase them.
public struct IntentJournal: Sendable {
    /// The store holding the groups the intents are about (not a mitigated wrapper).
    public let store: any ItemStore
    /// The clock for intents.
    let now: @Sendable () -> Date

    /// The `service` of every intent item.
    public static let service = "sharedkeychain.intent"

    public init(store: any ItemStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The group holding the intents about `group`.
    public static func journalGroup(for group: String) -> String { group + AccessGroup.intentJournalSuffix }

    /// One deletion about to happen. Holds keys (account, service, group), never item data.
    public struct Intent: Sendable, Hashable, Codable {
        public var id: UUID
        public var time: Date
        /// The bundle ID of the app deleting.
        public var app: String
        /// `delete`, `token wipe`, `token wipe-account`, `token remove`.
        public var operation: String
        public var group: String
        /// The query, as attributes, for people.
        public var query: String
        /// The keys the deletion will remove.
        public var keys: [PrimaryKey]
        /// For a write of many items (a cache import): how to put the group back as it was.
        /// An intent with one is rolled back, not reported as an interrupted deletion.
        public var undo: Undo?
    }

    /// What a many-item write changes, recorded before it starts so that a process killed
    /// half-way leaves a group that ``rollBack(group:)`` puts back as it was: all or nothing.
    /// Holds the items it will overwrite, data included: it sits in the journal group, which
    /// no app may reach, in the same store as the items themselves.
    public struct Undo: Sendable, Hashable, Codable {
        /// Items the write will overwrite, as they are now.
        public var restore: [StoredItem]
        /// Keys the write will create: absent now.
        public var remove: [PrimaryKey]

        public init(restore: [StoredItem], remove: [PrimaryKey]) {
            self.restore = restore
            self.remove = remove
        }
    }

    /// An intent that was never finished, with what its deletion did before it stopped.
    public struct Interrupted: Sendable, Hashable, Codable, CustomStringConvertible {
        public var intent: Intent
        /// Keys of the intent that no longer hold an item from before the intent.
        public var removed: [PrimaryKey]
        /// Keys of the intent whose item, created before it, is still there.
        public var remaining: [PrimaryKey]

        /// `interrupted token wipe by com.x at T: 5 of 7 items removed, 2 remain (query: ...)`.
        public var description: String {
            "interrupted \(intent.operation) by \(DisplayText(intent.app)) at \(intent.time.formatted(.iso8601)): "
                + "\(removed.count) of \(intent.keys.count.counted("item")) removed, "
                + "\(remaining.count) remain\(remaining.count == 1 ? "s" : "") (query: \(intent.query))"
        }
    }

    /// Records that `app` is about to delete `items` of `group`; returns the intent to
    /// ``finish(_:)`` once the deletion and its outcome are recorded.
    public func begin(app: String, operation: String, group: String, query: String, items: [StoredItem]) throws(StorageError) -> Intent {
        try record(Intent(
            id: UUID(), time: now(), app: app, operation: operation, group: group, query: query,
            keys: items.filter { $0.group == group }.map(\.primaryKey)))
    }

    /// Records that `app` is about to write many items of `group`, with `undo` to put the group
    /// back if it never finishes; returns the intent to ``finish(_:)`` once every item is written.
    public func beginWrite(app: String, operation: String, group: String, undo: Undo) throws(StorageError) -> Intent {
        try record(Intent(
            id: UUID(), time: now(), app: app, operation: operation, group: group,
            query: "\(undo.restore.count + undo.remove.count) items of group \(group)", keys: [], undo: undo))
    }

    private func record(_ intent: Intent) throws(StorageError) -> Intent {
        // Dates as exact doubles: ISO 8601 would drop fractions, and the intent's time decides
        // which items predate it.
        let encoder = JSONEncoder()
        let data: Data
        do { data = try encoder.encode(intent) } catch {
            throw .backend(domain: "IntentJournal", code: 1, message: "cannot encode an intent: \(error)")
        }
        try store.add(StoredItem(
            group: Self.journalGroup(for: intent.group), account: intent.id.uuidString, service: Self.service,
            label: "intent: \(intent.app) \(intent.operation)", provenance: Provenance(addedBy: "sharedkeychain.intent"),
            creationDate: intent.time, modificationDate: intent.time, data: data))
        FaultPoint.reached("after-intent")
        return intent
    }

    /// Removes a finished intent.
    public func finish(_ intent: Intent) throws(StorageError) {
        _ = try store.delete(matching: ItemQuery(
            groups: [Self.journalGroup(for: intent.group)], account: intent.id.uuidString, service: Self.service))
    }

    /// Removes a finished intent and keeps, in its place, the emulator's record of the deletion:
    /// who deleted how many items, and when. A device keeps no such record (a full wipe even
    /// deletes MSAL's own wipe record); the emulator keeps the last ``deletionsKept`` per group
    /// so a user can still ask who did it.
    public func finish(_ intent: Intent, deleted: Int) throws(StorageError) {
        let deletion = Deletion(
            id: intent.id, time: intent.time, app: intent.app, operation: intent.operation,
            group: intent.group, query: intent.query, deleted: deleted)
        let journalGroup = Self.journalGroup(for: intent.group)
        try store.add(StoredItem(
            group: journalGroup, account: intent.id.uuidString, service: Self.deletionService,
            label: "deletion: \(intent.app) \(intent.operation)", provenance: Provenance(addedBy: "sharedkeychain.intent"),
            creationDate: intent.time, modificationDate: intent.time, data: try Self.encode(deletion)))
        try finish(intent)
        let kept = try store.items(matching: ItemQuery(groups: [journalGroup], service: Self.deletionService), limit: nil)
        guard kept.count > Self.deletionsKept else { return }
        for old in kept.sorted(by: { $0.creationDate < $1.creationDate }).dropLast(Self.deletionsKept) {
            _ = try store.delete(matching: ItemQuery(groups: [journalGroup], account: old.account, service: Self.deletionService))
        }
    }

    /// The emulator's records of finished deletions of `group`'s items, oldest first.
    public func deletions(group: String) throws(StorageError) -> [Deletion] {
        try records(Deletion.self, service: Self.deletionService, group: group, what: "a deletion record").sorted { $0.time < $1.time }
    }

    /// The journal records of `service` about `group`, decoded; one that does not decode is an error.
    private func records<Record: Decodable>(
        _ type: Record.Type, service: String, group: String, what: String
    ) throws(StorageError) -> [Record] {
        let items = try store.items(matching: ItemQuery(groups: [Self.journalGroup(for: group)], service: service), limit: nil)
        let decoder = JSONDecoder()
        var records: [Record] = []
        for item in items {
            do { records.append(try decoder.decode(Record.self, from: item.data)) } catch {
                throw .corruptItem(location: item.primaryKey.description, reason: "not \(what) of this tool")
            }
        }
        return records
    }

    /// The `service` of the emulator's records of finished deletions.
    public static let deletionService = "sharedkeychain.deletion"
    /// How many finished deletions the emulator remembers per group.
    public static let deletionsKept = 20

    /// The emulator's record of a finished deletion. Keys and counts, never item data.
    public struct Deletion: Sendable, Hashable, Codable, CustomStringConvertible {
        public var id: UUID
        public var time: Date
        /// The bundle ID of the app that deleted.
        public var app: String
        /// `token wipe`, `token wipe-account`, `token remove`.
        public var operation: String
        public var group: String
        /// The query, as attributes, for people.
        public var query: String
        /// How many items the deletion removed.
        public var deleted: Int

        /// `2026-11-25T10:00:00Z com.contoso.calendar token wipe: 9 items deleted`.
        public var description: String {
            "\(time.formatted(.iso8601)) \(DisplayText(app)) \(operation): \(deleted.counted("item")) deleted"
        }
    }

    private static func encode(_ value: some Encodable) throws(StorageError) -> Data {
        do { return try JSONEncoder().encode(value) } catch {
            throw .backend(domain: "IntentJournal", code: 1, message: "cannot encode a journal record: \(error)")
        }
    }

    /// Every unfinished intent about `group`, oldest first.
    private func unfinished(group: String) throws(StorageError) -> [Intent] {
        try records(Intent.self, service: Self.service, group: group, what: "an intent").sorted { $0.time < $1.time }
    }

    /// Puts back, as they were before, the groups' many-item writes that never finished (a
    /// process killed during a cache import); returns the intents rolled back, oldest first.
    /// Running it again after it was itself interrupted finishes the job.
    @discardableResult
    public func rollBack(group: String) throws(StorageError) -> [Intent] {
        let writes = try unfinished(group: group).filter { $0.undo != nil }
        for intent in writes.reversed() {
            guard let undo = intent.undo else { continue }
            for key in undo.remove {
                _ = try store.delete(matching: ItemQuery(groups: [key.group], account: key.account, service: key.service))
            }
            for item in undo.restore {
                _ = try store.delete(matching: ItemQuery(groups: [item.group], account: item.account, service: item.service))
                try store.add(item)
            }
            try finish(intent)
        }
        return writes
    }

    /// The unfinished deletions about `group`, oldest first, each with what is gone and what
    /// remains of its keys.
    public func interrupted(group: String) throws(StorageError) -> [Interrupted] {
        let intents = try unfinished(group: group).filter { $0.undo == nil }
        guard !intents.isEmpty else { return [] }
        let present = try store.items(matching: ItemQuery(groups: [group]), limit: nil)
        let createdAt = Dictionary(present.map { ($0.primaryKey, $0.creationDate) }, uniquingKeysWith: min)
        return intents.map { intent in
            // An item created after the intent is a new one, not a survivor.
            let remaining = intent.keys.filter { key in createdAt[key].map { $0 <= intent.time } ?? false }
            let left = Set(remaining)
            return Interrupted(intent: intent, removed: intent.keys.filter { !left.contains($0) }, remaining: remaining)
        }
    }

    /// Forgets the interrupted intents about `group` once someone has dealt with them; returns
    /// how many there were.
    @discardableResult
    public func acknowledge(group: String) throws(StorageError) -> Int {
        // Deletions only: an unfinished write keeps its undo record until it is rolled back.
        let deletions = try unfinished(group: group).filter { $0.undo == nil }
        for intent in deletions { try finish(intent) }
        return deletions.count
    }
}

/// Named points between the phases of a journaled deletion where a test can stop the process:
/// with `SHARED_KEYCHAIN_STOP_AT=<point>` in its environment, a process reaching that point
/// writes `stopped at <point>` to standard error and stops itself (SIGSTOP), so the test can
/// kill it there with SIGKILL, exactly as a crash or an OOM kill would. Unset, it does nothing.
public enum FaultPoint {
    private static let requested = ProcessInfo.processInfo.environment["SHARED_KEYCHAIN_STOP_AT"]

    /// Stops the process here when the environment asks for `point`.
    public static func reached(_ point: String) {
        guard let requested, requested == point else { return }
        FileHandle.standardError.write(Data("stopped at \(point)\n".utf8))
        raise(SIGSTOP)
    }
}
