import Foundation
import Synchronization

/// Numbers that order items by when they got their primary key, like the insertion order of
/// ``KeychainStorage/InMemoryStore``: a wall-clock reading in nanoseconds, made strictly
/// increasing within the process. Adds to one group are serialised by the group lock, so the
/// order holds across processes too (as far as their clocks agree).
enum InsertionClock {
    private static let last = Mutex<UInt64>(0)

    static func next() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let reading = UInt64(max(0, now.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, now.tv_nsec))
        return last.withLock { last in
            last = max(reading, last &+ 1)
            return last
        }
    }
}
