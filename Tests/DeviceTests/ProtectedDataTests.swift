import Device
import Foundation
import Logging
import SharedKeychain
import Testing

/// Issue 30, point 3: the device's protected data, as UIKit shows it to an app
/// (`UIApplication.isProtectedDataAvailable`, `protectedDataWillBecomeUnavailableNotification`,
/// `protectedDataDidBecomeAvailableNotification`), across processes through the state directory.
@Suite("Protected data on the device")
struct ProtectedDataTests {
    static let logger = Logger(label: "protected-data-tests")

    /// A device in a state directory of its own.
    private static func device() throws -> Device {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("protected-data-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        return Device(stateDirectory: state)
    }

    @Test("isProtectedDataAvailable and each class's availability follow the lock and the first unlock")
    func isProtectedDataAvailablePerClass() throws {
        let device = try Self.device()
        defer { try? FileManager.default.removeItem(at: device.stateDirectory) }
        func available(_ state: DeviceLockState) -> [Accessibility] {
            state.protectedDataAvailability.filter(\.available).map(\.accessibility)
        }
        #expect(try device.isProtectedDataAvailable())
        #expect(available(try device.lockState()) == Accessibility.allCases)

        try device.lock(keyring: .memory, logger: Self.logger)
        #expect(try device.isProtectedDataAvailable() == false)
        #expect(available(try device.lockState()) == [.afterFirstUnlock, .always, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly])

        try device.reboot(keyring: .memory, logger: Self.logger)
        let rebooted = try device.lockState()
        #expect(rebooted.isBeforeFirstUnlock && !rebooted.isProtectedDataAvailable)
        #expect(available(rebooted) == [.always, .alwaysThisDeviceOnly])
        let reasons = Dictionary(uniqueKeysWithValues: rebooted.protectedDataAvailability.map { ($0.accessibility, $0.reason) })
        #expect(reasons[.whenUnlocked] == "the device is locked")
        #expect(reasons[.afterFirstUnlockThisDeviceOnly] == "the device was not unlocked since it booted")
        #expect(reasons[.always] == .some(nil))

        try device.unlock()
        #expect(try device.isProtectedDataAvailable())
        #expect(try device.lockState().isBeforeFirstUnlock == false)
    }

    @Test("lock posts protectedDataWillBecomeUnavailable, unlock protectedDataDidBecomeAvailable; a reboot of a locked device posts nothing")
    func lockAndUnlockPostTheNotifications() async throws {
        let device = try Self.device()
        defer { try? FileManager.default.removeItem(at: device.stateDirectory) }
        // Another instance on the same state directory, as another process would be.
        let watch = Device(stateDirectory: device.stateDirectory).protectedDataEvents(pollInterval: 0.005)
        defer { watch.cancel() }

        try device.lock(keyring: .memory, logger: Self.logger)
        try device.lock(keyring: .memory, logger: Self.logger)
        try device.reboot(keyring: .memory, logger: Self.logger)
        try device.unlock()
        try device.unlock()
        try device.reboot(keyring: .memory, logger: Self.logger)
        try device.unlock()

        var seen: [ProtectedDataNotification] = []
        for await notification in watch.events {
            seen.append(notification)
            if seen.count == 4 { break }
        }
        #expect(seen.map(\.event) == [.willBecomeUnavailable, .didBecomeAvailable, .willBecomeUnavailable, .didBecomeAvailable])
        #expect(seen.map(\.state) == [
            DeviceLockState(locked: true, unlockedSinceBoot: true), .unlocked,
            DeviceLockState(locked: true, unlockedSinceBoot: false), .unlocked,
        ])
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("a watch sees only what is posted after it subscribed")
    func aWatchStartsAtItsSubscription() async throws {
        let device = try Self.device()
        defer { try? FileManager.default.removeItem(at: device.stateDirectory) }
        try device.lock(keyring: .memory, logger: Self.logger)
        let watch = device.protectedDataEvents(pollInterval: 0.005)
        defer { watch.cancel() }
        try device.unlock()
        var iterator = watch.events.makeAsyncIterator()
        #expect(await iterator.next()?.event == .didBecomeAvailable)
    }

    @Test("protectedDataDidBecomeAvailable returns at the first unlock after a reboot, and at once when available")
    func waitingForProtectedData() async throws {
        let device = try Self.device()
        defer { try? FileManager.default.removeItem(at: device.stateDirectory) }
        try await device.protectedDataDidBecomeAvailable()

        try device.reboot(keyring: .memory, logger: Self.logger)
        let waiter = Task {
            try await device.protectedDataDidBecomeAvailable()
            // What the app sees once the wait returns: never before the unlock.
            return try device.isProtectedDataAvailable()
        }
        #expect(try device.isProtectedDataAvailable() == false)
        try device.unlock()
        #expect(try await waiter.value)
    }

    @Test("a cancelled wait ends with CancellationError")
    func aCancelledWaitEnds() async throws {
        let device = try Self.device()
        defer { try? FileManager.default.removeItem(at: device.stateDirectory) }
        try device.reboot(keyring: .memory, logger: Self.logger)
        let waiter = Task { try await device.protectedDataDidBecomeAvailable() }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(try device.isProtectedDataAvailable() == false)
    }
}
