import Foundation
import Simulation

/// The tests' clock is the simulations' own, standing still until a test moves it.
typealias TestClock = SimulationClock

extension SimulationClock {
    /// A clock standing at the tests' fixed instant (November 2023) until a test moves it.
    static func fixedForTests() -> SimulationClock { SimulationClock(fixedAt: Date(timeIntervalSince1970: 1_700_000_000)) }
}
