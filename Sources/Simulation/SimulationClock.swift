import Foundation
import Synchronization

/// The clock simulated apps share: their keychains date items by it and their token caches
/// expire tokens by it. A run moves it forward (``advance(by:)``) to expire access tokens on its
/// own schedule. Either it follows the real time plus what the run added, so wall-clock timings
/// stay real (scenarios, load), or it stands still at a fixed instant and moves only when told
/// (hazards, tests), so a run's dates do not depend on how fast it ran.
public final class SimulationClock: Sendable {
    private enum Base {
        /// The real time, read at each call.
        case real
        /// A fixed instant.
        case fixed(Date)
    }

    private let base: Base
    private let offset = Mutex<TimeInterval>(0)

    /// A clock that follows the real time.
    public init() { base = .real }

    /// A clock that stands at `start` until it is moved.
    public init(fixedAt start: Date) { base = .fixed(start) }

    /// The clock's time now.
    public var now: Date {
        let offset = offset.withLock { $0 }
        switch base {
        case .real: return Date().addingTimeInterval(offset)
        case .fixed(let start): return start.addingTimeInterval(offset)
        }
    }

    /// Moves the clock `seconds` forward.
    public func advance(by seconds: TimeInterval) { offset.withLock { $0 += seconds } }

    /// The clock as the closure keychains and token caches take.
    public var function: @Sendable () -> Date { { [self] in now } }
}
