import Synchronization

/// Calls finished so far, shared between the apps and whoever shows progress.
public final class ProgressCounter: Sendable {
    private let count = Atomic<Int>(0)

    public init() {}

    func increment() { count.add(1, ordering: .relaxed) }

    public var value: Int { count.load(ordering: .relaxed) }
}
