import Foundation
import Synchronization

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }
    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }

    /// For `TokenCache(now:)`.
    var function: @Sendable () -> Date { { [self] in now } }
}
