import Foundation
import Synchronization

/// The clock the simulated apps share: starts at the real time, moved by the scenario (to
/// expire access tokens between background refreshes).
final class ScenarioClock: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date()) { date = Mutex(start) }

    var now: Date { date.withLock { $0 } }

    func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }

    var function: @Sendable () -> Date { { [self] in now } }
}
