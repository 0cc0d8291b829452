import Synchronization

/// A running watch of some access groups: the ``ItemEvent``s of their items, in the order the
/// store saw them, until ``cancel()``.
///
/// ```swift
/// let watch = try store.watch(groups: ["ABCDE12345.com.microsoft.adalcache"])
/// defer { watch.cancel() }
/// for await event in watch.events {
///     print(event.kind, event.account, event.creator ?? "-")
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
