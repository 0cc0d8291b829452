import Foundation
import SharedKeychain
import Synchronization
import TokenCache

/// One app's view of a store with the mitigations of a ``MitigationPolicy`` applied: a
/// decorator, so a ``Keychain`` (and a `TokenCache` on it) built on it needs no change, and
/// groups the policy does not name behave exactly as Keychain Services does.
///
/// Deletes in a group with ``Mitigation/guardedDelete`` are refused, with nothing deleted, when
/// they match items another app created and this app is not privileged there. Deletes in a
/// group with ``Mitigation/audit`` (refused ones too) are journaled in ``AuditJournal``.
/// Adds, reads and updates pass through.
public final class MitigatedStore: ItemStore {
    /// The store underneath, shared by every app.
    public let base: any ItemStore
    /// The app this view acts for; the store learns it here because queries do not carry it.
    public let app: String
    /// Which groups are protected how.
    public let policy: MitigationPolicy
    /// Where audited deletes are recorded.
    public let journal: AuditJournal
    /// Where audited deletes announce themselves before they run.
    public let intentJournal: IntentJournal
    private let now: @Sendable () -> Date
    /// Whether the app is ad hoc (marked in its journal entries).
    public let adHoc: Bool
    private let refusals = Mutex<[DeleteRefusal]>([])

    /// - Parameters:
    ///   - base: the shared store.
    ///   - app: the bundle ID of the app using this view.
    ///   - now: the clock for journal entries.
    ///   - adHoc: the app is declared ad hoc rather than installed; its journal entries say so.
    public init(
        base: any ItemStore, app: String, policy: MitigationPolicy, adHoc: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.base = base
        self.app = app
        self.adHoc = adHoc
        self.policy = policy
        self.journal = AuditJournal(store: base)
        self.intentJournal = IntentJournal(store: base, now: now)
        self.now = now
    }

    /// The base store's: journals are the tool's, beneath every app's policy.
    public var journalStore: any ItemStore { base.journalStore }

    /// The base store's name with `+mitigations`.
    public var name: String { "\(base.name)+mitigations" }

    /// The base store's device answer: a policy never changes what the device asks.
    public var userAuthentication: AuthenticationProvider? { base.userAuthentication }

    /// The refusals this view has made, oldest first.
    public var refusalLog: [DeleteRefusal] { refusals.withLock { $0 } }

    /// The typed refusal behind `error`, when guarded delete of this view caused it.
    public func refusal(for error: any Error) -> DeleteRefusal? {
        DeleteRefusal.isRefusal(error) ? refusalLog.last : nil
    }

    /// Passes through.
    public func add(_ item: StoredItem) throws(StorageError) { try base.add(item) }

    /// Passes through.
    public func items(matching query: ItemQuery, limit: Int?) throws(StorageError) -> [StoredItem] {
        try base.items(matching: query, limit: limit)
    }

    /// Passes through.
    public func update(matching query: ItemQuery, with change: ItemChange, at date: Date) throws(StorageError) -> Int {
        try base.update(matching: query, with: change, at: date)
    }

    /// Checks guarded groups first: one refusal refuses the whole delete. Then deletes and
    /// journals audited groups.
    public func delete(matching query: ItemQuery) throws(StorageError) -> Int {
        let watched = query.groups.compactMap { group in policy.policy(for: group).map { (group, $0) } }
        guard !watched.isEmpty else { return try base.delete(matching: query) }
        var matchedByGroup: [String: [StoredItem]] = [:]
        for (group, _) in watched {
            matchedByGroup[group] = try base.items(matching: query.restricted(to: [group]), limit: nil)
        }
        let date = now()
        try refuseIfGuarded(query, watched: watched, matchedByGroup: matchedByGroup, at: date)
        // Audited groups get their intent written first, so a process killed during the
        // delete leaves a record of it (`audit` reports it as interrupted).
        var intents: [IntentJournal.Intent] = []
        for (group, groupPolicy) in watched where groupPolicy.enables(.audit) {
            let items = matchedByGroup[group] ?? []
            guard !items.isEmpty else { continue }
            intents.append(try intentJournal.begin(app: app, operation: "delete", group: group, query: Self.describe(query), items: items))
        }
        let deleted = try base.delete(matching: query)
        FaultPoint.reached("after-delete")
        for (group, groupPolicy) in watched where groupPolicy.enables(.audit) {
            let items = matchedByGroup[group] ?? []
            guard !items.isEmpty else { continue }
            try journal.append(entry(group: group, query: query, items: items, outcome: .deleted, at: date))
        }
        for intent in intents { try intentJournal.finish(intent) }
        return deleted
    }

    /// Refuses in advance a deletion of `items` that guarded delete would refuse, journaling
    /// the refusal in audited groups and nothing else.
    public func authorizeDeletion(of items: [StoredItem], matching query: ItemQuery) throws(StorageError) {
        let watched = query.groups.compactMap { group in policy.policy(for: group).map { (group, $0) } }
        guard !watched.isEmpty else { return }
        try refuseIfGuarded(query, watched: watched, matchedByGroup: Dictionary(grouping: items, by: \.group), at: now())
    }

    /// Throws the refusal (journaled in every audited group of the query) when the delete
    /// matches other apps' items in a guarded group where this app is not privileged.
    private func refuseIfGuarded(
        _ query: ItemQuery, watched: [(String, GroupPolicy)], matchedByGroup: [String: [StoredItem]], at date: Date
    ) throws(StorageError) {
        for (group, groupPolicy) in watched where groupPolicy.enables(.guardedDelete) && !groupPolicy.isPrivileged(app) {
            let matched = matchedByGroup[group] ?? []
            // Who added an item is the emulator's provenance: a device keeps no such record.
            let foreign = matched.filter { $0.provenance?.addedBy != app }
            guard !foreign.isEmpty else { continue }
            let refusal = DeleteRefusal(
                app: app, group: group, refused: foreign.count, matched: matched.count,
                addedBy: Self.count(foreign), privileged: groupPolicy.privileged)
            refusals.withLock { $0.append(refusal) }
            for (audited, auditedPolicy) in watched where auditedPolicy.enables(.audit) {
                let items = matchedByGroup[audited] ?? []
                try journal.append(entry(group: audited, query: query, items: items, outcome: .refused, at: date))
            }
            throw refusal.storageError
        }
    }

    private func entry(group: String, query: ItemQuery, items: [StoredItem], outcome: AuditEntry.Outcome, at date: Date) -> AuditEntry {
        AuditEntry(time: date, app: app, operation: "delete", group: group, query: Self.describe(query),
                   itemCount: items.count, addedBy: Self.count(items), outcome: outcome, adHoc: adHoc)
    }

    /// How many of `items` each app added, by the emulator's provenance (``Provenance/unknown``
    /// for items without it).
    public static func count(_ items: [StoredItem]) -> [String: Int] {
        items.reduce(into: [:]) { counts, item in counts[item.provenance?.addedBy ?? Provenance.unknown, default: 0] += 1 }
    }

    /// The query's attributes, never data: `account 'a', service 's' in groups A, B`.
    static func describe(_ query: ItemQuery) -> String {
        var parts: [String] = []
        if let account = query.account { parts.append("account '\(account)'") }
        if let service = query.service { parts.append("service '\(service)'") }
        if let type = query.type { parts.append("type \(type)") }
        if query.generic != nil { parts.append("a generic value") }
        let groups = (query.groups.count == 1 ? "in group " : "in groups ") + query.groups.joined(separator: ", ")
        return parts.isEmpty ? "everything \(groups)" : parts.joined(separator: ", ") + " " + groups
    }
}

extension MitigatedStore: ItemWatching {
    /// The base store's watch: mitigations change what deletes do, not what is reported, so an
    /// app under a policy still learns at once that its tokens were wiped.
    public func watch(groups: [String]) throws(StorageError) -> ItemWatch {
        guard let watchable = base as? any ItemWatching else {
            throw .unavailable("the '\(base.name)' store cannot be watched: it does not report changes")
        }
        return try watchable.watch(groups: groups)
    }
}

/// Guarded delete refused an app's delete because it matched items other apps added (by the
/// emulator's provenance) and the app is not privileged for the group. Nothing was deleted.
///
/// Its status is errSecMissingEntitlement (-34018): like a missing entitlement, the app lacks
/// the right to do this to the group, retrying will not help, and the fix is a change of
/// configuration (make it privileged) rather than of the query, which is well formed (so not
/// errSecParam). The message says it is guarded delete, not the entitlements file, that refused.
public struct DeleteRefusal: Error, Sendable, Hashable, StatusReporting, CustomStringConvertible {
    /// The domain of the storage error that carries a refusal up through the keychain core.
    public static let domain = "SharedKeychain.GuardedDelete"

    /// The bundle ID of the app that asked.
    public let app: String
    /// The guarded group.
    public let group: String
    /// How many matched items were other apps' (what it was refused).
    public let refused: Int
    /// How many items the delete matched in the group, its own included.
    public let matched: Int
    /// Who added the refused items, with counts: the emulator's provenance (a device keeps none).
    public let addedBy: [String: Int]
    /// The apps that may delete them.
    public let privileged: [String]

    /// - Parameters: see the properties.
    public init(app: String, group: String, refused: Int, matched: Int, addedBy: [String: Int], privileged: [String]) {
        self.app = app
        self.group = group
        self.refused = refused
        self.matched = matched
        self.addedBy = addedBy
        self.privileged = privileged
    }

    /// errSecMissingEntitlement; see the type's documentation.
    public var status: KeychainStatus { .missingEntitlement }

    /// Names the app, the group and how many items it was refused.
    public var message: String {
        let owners = addedBy.sorted { $0.key < $1.key }.map { "\(DisplayText($0.key)): \($0.value)" }.joined(separator: ", ")
        let who = privileged.isEmpty ? "no app is privileged there" : "only \(privileged.joined(separator: ", ")) may"
        return "guarded delete refused \(DisplayText(app)) deleting \(refused) of \(matched.counted("item")) in group '\(group)': "
            + "other apps added them (\(owners), as the emulator recorded it); \(who). Nothing was deleted."
    }

    /// The status and the message.
    public var description: String { "\(status.name) (\(status.rawValue)): \(message)" }

    /// The storage error a store decorator throws for the refusal.
    public var storageError: StorageError {
        .refused(policy: Self.domain, message: message)
    }

    /// Whether `error` (from a store, the keychain core or the token cache) is a guarded-delete
    /// refusal carried as a storage error.
    public static func isRefusal(_ error: any Error) -> Bool {
        let storage: StorageError?
        switch error {
        case let error as StorageError: storage = error
        case KeychainError.storage(let error): storage = error
        case TokenCacheError.keychain(.storage(let error)): storage = error
        default: storage = nil
        }
        guard case .refused(let policy, _)? = storage else { return false }
        return policy == Self.domain
    }
}
