import Foundation
import Hazards
import KeychainTestSupport
import SharedKeychain
import Simulation
import Testing

/// Issue 30, point 3: an app prewarmed before the first unlock that takes -25308 for "signed
/// out" loses the user's sign-in; waiting for protectedDataDidBecomeAvailable keeps it.
@Suite("Hazard: prewarm logout")
struct PrewarmLogoutHazardTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func aPrewarmedLaunchBeforeTheFirstUnlockSignsTheUserOutUnlessItWaits(_ backend: Backend) throws {
        let device = TestDevice()
        let store = try device.store(backend)
        let open = try Hazard.prewarmLogout.run(.unmitigated, on: store, device: device)
        // The launch ran in the reboot window: locked, not unlocked since boot.
        #expect(device.history.contains(DeviceLockState(locked: true, unlockedSinceBoot: false)))
        #expect(open.metric("prewarmed launches before the first unlock") == 1)
        #expect(open.metric("reads failed with errSecInteractionNotAllowed at launch") == 1)
        #expect(open.metric("reads deferred until protectedDataDidBecomeAvailable") == 0)
        #expect((open.metric("tokens deleted after the first unlock") ?? 0) > 0)
        #expect(open.metric("sign-in prompts") == 1)
        #expect(open.metric("signed in after the first unlock") == 0)
        #expect(open.deviceView.contains { $0.contains("reads its account at launch: errSecInteractionNotAllowed (-25308)") })
        #expect(open.losses.first?.app == "com.contoso.mail" && open.losses.first?.causedBy == ["com.contoso.mail"])
        #expect(device.current == .unlocked)

        let fixed = try Hazard.prewarmLogout.run(.deployable, on: store, device: device)
        #expect(fixed.metric("reads failed with errSecInteractionNotAllowed at launch") == 0)
        #expect(fixed.metric("reads deferred until protectedDataDidBecomeAvailable") == 1)
        #expect(fixed.metric("tokens deleted after the first unlock") == 0)
        #expect(fixed.metric("sign-in prompts") == 0)
        #expect(fixed.metric("signed in after the first unlock") == 1)
        #expect(fixed.losses.isEmpty)
        #expect(fixed.deviceView.contains { $0.hasPrefix("protectedDataDidBecomeAvailable: com.contoso.mail reads its account now: alice@contoso.com, signed in") })
        #expect(throws: HazardError.self) { try Hazard.prewarmLogout.run(.unmitigated, on: store) }
    }

    /// The user signs in before the phone reboots: a run that starts on a phone already
    /// rebooted (what `device reboot` leaves) first unlocks it, as the user did to sign in.
    @Test func aRunStartedOnARebootedDeviceStillSignsInFirst() throws {
        let device = TestDevice()
        _ = try device.perform(.reboot)
        let open = try Hazard.prewarmLogout.run(.unmitigated, on: device.store(.memory), device: device)
        #expect(open.metric("reads failed with errSecInteractionNotAllowed at launch") == 1)
        #expect(open.metric("signed in after the first unlock") == 0)
        #expect(device.current == .unlocked)
    }

    @Test func theReportSeparatesTheDevicesViewFromTheEmulators() throws {
        let device = TestDevice()
        let comparison = try Hazard.prewarmLogout.compare(on: device.store(.memory), device: device, whatIf: true)
        // No emulator-only mitigation: --what-if adds no run.
        #expect(comparison.runs.map(\.variant) == [.unmitigated, .deployable])
        let text = comparison.runs[0].text
        #expect(text.contains("what a device shows:"))
        #expect(text.contains("what only the emulator shows ("))
        #expect(Hazard.allCases.contains(.prewarmLogout) && Hazard.prewarmLogout.needsDevice)
    }
}
