import Foundation
import Synchronization

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
