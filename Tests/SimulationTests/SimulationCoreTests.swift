import Device
import Foundation
import Logging
import Mitigations
import SharedKeychain
import Simulation
import Testing

/// The core every simulation shares: its clock, its start barrier, its simulated app.
@Suite("Simulation core")
struct SimulationCoreTests {
    @Test func aFixedClockStandsStillUntilMoved() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = SimulationClock(fixedAt: start)
        #expect(clock.now == start)
        clock.advance(by: 3600)
        #expect(clock.function() == start.addingTimeInterval(3600))
    }

    @Test func aRealClockFollowsTheTimePlusWhatTheRunAdded() {
        let clock = SimulationClock()
        clock.advance(by: 7200)
        let offset = clock.now.timeIntervalSince(Date())
        #expect(offset > 7199 && offset < 7201)
    }

    @Test func theBarrierReleasesEveryThreadBeforeAnyFinishesAndKeepsTheOrder() {
        // A rendezvous inside the bodies: each arrives, then waits for all eight. It completes
        // only when the eight bodies run at the same time; run one after another, each would
        // time out.
        let rendezvous = DispatchGroup()
        for _ in 0..<8 { rendezvous.enter() }
        let seen = StartBarrier.run(8) { index -> (Int, Bool) in
            rendezvous.leave()
            return (index, rendezvous.wait(timeout: .now() + 30) == .success)
        }
        #expect(seen.map(\.0) == Array(0..<8))
        #expect(seen.allSatisfy { $0.1 })
    }

    /// A simulated app's keychain is the one ``AppKeychains`` makes: the device's answer to
    /// access-control prompts and the group's mitigation policy both apply.
    @Test func aSimulatedAppAsksTheDeviceAndObeysThePolicy() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("simulation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let device = Device(stateDirectory: state)
        let store = try device.openStore(.memory, logger: Logger(label: "test"))
        let team = try TeamIdentifier("SIMCORE001")
        let group = try AccessGroup(teamID: team, identifier: "com.contoso.shared")
        func app(_ bundleID: String) throws -> SimulatedApp {
            let identity = try AppIdentity(bundleID: bundleID, teamID: team, keychainAccessGroups: [group])
            return try SimulatedApp(
                ResolvedApp(identity: identity, settings: nil, origin: .simulated),
                keychains: AppKeychains(store: store, policy: MitigationPolicy(groups: [group.rawValue: .all()])),
                clock: SimulationClock(fixedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        }
        let mail = try app("com.contoso.mail")
        let calendar = try app("com.contoso.calendar")
        #expect(mail.tokens == nil)
        try mail.keychain.add(NewItem(account: "a", service: "s", data: Data("x".utf8)))
        #expect(try mail.keychain.first(KeychainQuery(account: "a")).creationDate == Date(timeIntervalSince1970: 1_700_000_000))

        // Guarded delete: Calendar may not delete what Mail added.
        let refused = #expect(throws: KeychainError.self) { try calendar.keychain.delete(KeychainQuery(group: group.rawValue)) }
        #expect(refused.flatMap(calendar.refusal(for:)) != nil)
        #expect(calendar.refusals.count == 1)

        var guarded = NewItem(account: "guarded", service: "s", data: Data("guarded secret".utf8))
        guarded.accessControl = [.userPresence]
        try mail.keychain.add(guarded)
        try device.setAuthenticationDecision(.deny)
        let read = #expect(throws: KeychainError.self) { try mail.keychain.first(KeychainQuery(account: "guarded")) }
        #expect(read?.status == .authFailed)
    }
}
