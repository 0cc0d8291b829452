import Device
import Foundation
import Logging
import SharedKeychain
import Testing
@testable import LoadGeneration

/// Issue 30, point 4: load workers consume the device's fault plan like every other keychain of
/// the device, and the report counts what the plan injected apart from the store's own errors.
@Suite("Load runs under the device's fault plan")
struct InjectedFaultTests {
    @Test func aLoadReportCountsInjectedFaultsApartFromUnexpectedErrors() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("load-faults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let device = Device(stateDirectory: state)
        let session = try device.session(keyring: .memory, logger: Logger(label: "test"))
        try device.faultPlan.add(try FaultRule(call: "SecItemUpdate", status: "errSecIO", count: 5))
        let configuration = LoadConfiguration(
            apps: 2, mix: try OperationMix(parsing: "write=100"), itemsPerApp: 4, valueSize: 64, operations: 60, warmup: 0, seed: 3,
            team: "LOADFAULT1")
        let report = try LoadRunner(configuration: configuration, keychains: session.keychains).runInThreads()
        #expect(report.injectedFaults == ["errSecIO": 5])
        #expect(report.injectedFailures == ["errSecIO": 5])
        #expect(report.errorsByStatus["errSecIO"] == 5)
        #expect(report.unexpectedErrors == 0)
        #expect(report.text.contains("injected faults (the device's fault plan): errSecIO 5"))
        #expect(try device.faultPlan.read().rules.map(\.injected) == [5])
    }
}
