import Foundation
import Synchronization

/// An app's token clock: the real time plus the offset `advance-clock` steps added, so access
/// tokens expire on the scenario's schedule while wall-clock timings stay real.
final class AppClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)

    func now() -> Date { Date().addingTimeInterval(offset.withLock { $0 }) }

    func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }
}
