import Foundation
import KeychainStorage
import Scenarios
import SharedKeychain
import Simulation
import Synchronization
import Testing

/// Issue 30, point 3: `launch: {app, prewarm, wait-for-protected-data}` steps, on a device whose
/// lock the in-memory store obeys.
@Suite("Scenario launch steps")
struct LaunchStepTests {
    /// A device whose lock lives in memory; the store made by ``store()`` obeys it.
    final class MemoryDevice: DeviceControl {
        private let state = Mutex(DeviceLockState.unlocked)
        func refusal(of action: DeviceAction) -> String? {
            [.lock, .unlock, .reboot].contains(action) ? nil : "no daemon here"
        }
        func perform(_ action: DeviceAction) throws -> String {
            state.withLock { state in
                switch action {
                case .lock: state.locked = true
                case .unlock: state = .unlocked
                default: state = DeviceLockState(locked: true, unlockedSinceBoot: false)
                }
            }
            return "\(action)"
        }
        func lockState() -> DeviceLockState { state.withLock { $0 } }
        func store() -> InMemoryStore { InMemoryStore(deviceLock: { [self] in lockState() }) }
    }

    @Test("the prewarm-logout example: the launch before the first unlock reads -25308; the waiting one reads at the unlock")
    func prewarmLogoutExample() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let scenario = try Scenario.load(from: examples.scenario("prewarm-logout"))
        let launches = scenario.steps.compactMap { step -> LaunchStep? in
            guard case .launch(let launch) = step else { return nil }
            return launch
        }
        #expect(launches.map(\.prewarm) == [true, true] && launches.map(\.waitsForProtectedData) == [false, true])
        let device = MemoryDevice()
        let report = try ScenarioRunner(scenario: scenario, store: device.store(), device: device).run(launcher: .inProcess)
        #expect(report.verdicts.allSatisfy { $0.passed }, "\(report.verdicts)")
        #expect(report.verdicts.map(\.step) == [3, 5, 6])
        // The waiting launch's read is judged at the unlock (step 5), after the notification.
        let operations = report.timeline.map(\.operation)
        let posted = try #require(operations.firstIndex(of: "protectedDataDidBecomeAvailable"))
        #expect(operations[posted...].contains("token accounts"))
    }

    @Test("a launch still waiting at the end fails; a launch the user opens on a locked device is refused")
    func waitingAndLockedLaunches() throws {
        let examples = try Examples()
        defer { examples.remove() }
        let waiting = try examples.write("waiting", steps: """
              - device: reboot
              - launch: {app: com.contoso.mail, prewarm: true, wait-for-protected-data: true}
            """)
        let device = MemoryDevice()
        let report = try ScenarioRunner(scenario: Scenario.load(from: waiting), store: device.store(), device: device).run(launcher: .inProcess)
        #expect(report.verdicts.count == 1 && report.verdicts[0].passed == false)
        #expect(report.verdicts[0].observed.contains("never posted protectedDataDidBecomeAvailable"))

        let opened = try examples.write("opened", steps: """
              - device: lock
              - launch: {app: com.contoso.mail}
            """)
        let locked = MemoryDevice()
        #expect(throws: ScenarioError.self) {
            try ScenarioRunner(scenario: Scenario.load(from: opened), store: locked.store(), device: locked).run(launcher: .inProcess)
        }
        #expect(throws: ScenarioError.self) { try ScenarioRunner(scenario: Scenario.load(from: opened), store: InMemoryStore()).run(launcher: .inProcess) }
        let unknown = try examples.write("unknown", steps: "  - launch: {app: com.contoso.mail, prewarmed: true}\n")
        #expect(throws: (any Error).self) { try Scenario.load(from: unknown) }
    }
}
