import Foundation
import Synchronization

/// A store that can report changes to the items of some access groups as they happen.
///
/// Every watching store reports the same events for the same operations:
/// - `add` is one ``ItemEvent/Kind/created`` event;
/// - an `update` that keeps the item's searchable attributes (data or label changes) is one
///   ``ItemEvent/Kind/changed`` event per item; one that changes them (account, service,
///   generic or type) may be reported as `changed` (memory) or as `created` for the new
///   version and `deleted` for the old one (Secret Service, which rewrites such an item);
/// - `delete` is one ``ItemEvent/Kind/deleted`` event per item, whole-group deletes included.
///
/// A watch sees changes made by every user of the store: other threads, and for a shared
/// store such as the Secret Service, other processes. It reports only items of the groups it
/// watches, and never their data.
public protocol ItemWatching: ItemStore {
    /// Subscribes to changes in `groups` (full access-group names, at least one) and returns
    /// once subscribed: every change made after the call returns is reported.
    func watch(groups: [String]) throws(StorageError) -> ItemWatch
}

/// A running watch of some access groups: the ``ItemEvent``s of their items, in the order the
/// store saw them, until ``cancel()``.
///
/// ```swift
/// let watch = try store.watch(groups: ["ABCDE12345.com.microsoft.adalcache"])
/// defer { watch.cancel() }
/// for await event in watch.events {
///     print(event.kind, event.account, event.addedBy ?? "-")
/// }
/// ```
///
/// The watch is subscribed when ``ItemWatching/watch(groups:)`` returns: every change made
/// after that is reported. It runs until ``cancel()`` is called or the task iterating
/// ``events`` is cancelled; dropping the handle does not stop it. ``events`` has one consumer
/// at a time and buffers what the consumer has not read yet.
public final class ItemWatch: Sendable {
    /// The access groups watched, in full.
    public let groups: [String]
    /// How many items the watched groups held when the watch started.
    public let initialItemCount: Int
    /// The events, in the order the store saw them; finishes after ``cancel()``.
    public let events: AsyncStream<ItemEvent>

    private let continuation: AsyncStream<ItemEvent>.Continuation
    private let cancelled = Atomic<Bool>(false)

    /// For stores: wraps a stream the store feeds through `continuation`. `onCancel` runs once,
    /// when the watch is cancelled or its consumer goes away, and must release whatever feeds
    /// the stream; it may run on any thread and must not block.
    public init(
        groups: [String],
        initialItemCount: Int,
        events: AsyncStream<ItemEvent>,
        continuation: AsyncStream<ItemEvent>.Continuation,
        onCancel: @escaping @Sendable () -> Void
    ) {
        self.groups = groups
        self.initialItemCount = initialItemCount
        self.events = events
        self.continuation = continuation
        let once = Atomic<Bool>(false)
        continuation.onTermination = { _ in
            guard !once.exchange(true, ordering: .acquiringAndReleasing) else { return }
            onCancel()
        }
    }

    /// A stream and its continuation as ``init(groups:initialItemCount:events:continuation:onCancel:)``
    /// takes them: unbounded, so no event is dropped while the consumer is busy.
    public static func makeStream() -> (events: AsyncStream<ItemEvent>, continuation: AsyncStream<ItemEvent>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: ItemEvent.self, bufferingPolicy: .unbounded)
        return (stream, continuation)
    }

    /// Stops the watch: unsubscribes from the store and finishes ``events`` (events already
    /// buffered are still delivered). Idempotent; safe from any thread.
    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        continuation.finish()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
}

/// One change to an item of a watched access group, as an ``ItemWatch`` reports it: what
/// happened, to which item, made by which app, and when the store saw it.
///
/// An event names an item by its attributes only. It never carries the item's data, so a
/// stream of events can be printed, logged or journaled without leaking a secret.
public struct ItemEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened to the item.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The item was added.
        case created
        /// The item was rewritten in place (its data, label or other attributes).
        case changed
        /// The item was deleted, alone or with its whole group.
        case deleted
    }

    /// What happened.
    public var kind: Kind
    /// The item's access group, in full (`ABCDE12345.com.microsoft.adalcache`).
    public var group: String
    /// `kSecAttrAccount` of the item.
    public var account: String
    /// `kSecAttrService` of the item.
    public var service: String
    /// The bundle ID of the app that added the item, as the emulator recorded it
    /// (``Provenance/addedBy``; a device keeps none), when recorded; not necessarily the app
    /// that made this change (a store does not learn who changed or deleted an item).
    public var addedBy: String?
    /// When the store noticed the change (not a date stored in the item).
    public var time: Date

    /// An event with every field given.
    public init(kind: Kind, group: String, account: String, service: String, addedBy: String?, time: Date) {
        self.kind = kind
        self.group = group
        self.account = account
        self.service = service
        self.addedBy = addedBy
        self.time = time
    }

    /// An event about `item`, taking its attributes and leaving its data behind.
    public init(_ kind: Kind, _ item: StoredItem, at time: Date) {
        self.init(
            kind: kind, group: item.group, account: item.account, service: item.service, addedBy: item.provenance?.addedBy,
            time: time)
    }

    /// The primary key of the item the event is about.
    public var primaryKey: PrimaryKey {
        PrimaryKey(group: group, account: account, service: service)
    }

    /// `created account 'alice', service 'rt' in group 'G' (added by com.contoso.mail, as the
    /// emulator recorded it)`; no data.
    public var description: String {
        "\(kind.rawValue) \(primaryKey) (added by \(addedBy.map { DisplayText($0).description } ?? "unknown"), as the emulator recorded it)"
    }
}

/// The watches of one in-process store, and the events published to them: each event goes to
/// every watch of its group. Thread-safe; publishing never blocks.
final class ItemEventHub: Sendable {
    private struct Subscriber {
        let groups: Set<String>
        let continuation: AsyncStream<ItemEvent>.Continuation
    }

    private let subscribers = Mutex<[UInt64: Subscriber]>([:])
    private let nextID = Atomic<UInt64>(0)

    /// Whether anyone watches: lets a store skip building events nobody reads.
    var isEmpty: Bool { subscribers.withLock { $0.isEmpty } }

    /// A new watch of `groups`; `initialItemCount` as the store counted it.
    func subscribe(groups: [String], initialItemCount: Int) -> ItemWatch {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (events, continuation) = ItemWatch.makeStream()
        subscribers.withLock { $0[id] = Subscriber(groups: Set(groups), continuation: continuation) }
        return ItemWatch(
            groups: groups, initialItemCount: initialItemCount, events: events, continuation: continuation
        ) { [weak self] in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
    }

    /// Sends each event to the watches of its group, in order.
    func publish(_ events: [ItemEvent]) {
        guard !events.isEmpty else { return }
        subscribers.withLock { subscribers in
            for subscriber in subscribers.values {
                for event in events where subscriber.groups.contains(event.group) {
                    subscriber.continuation.yield(event)
                }
            }
        }
    }
}
