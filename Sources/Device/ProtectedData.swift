import Foundation
import KeychainStorage
import SharedKeychain

/// UIKit's two protected-data notifications, by their names
/// (`UIApplication.protectedDataWillBecomeUnavailableNotification`, ...): posted when the
/// device's data protection locks and unlocks `NSFileProtectionComplete` data, which is
/// `kSecAttrAccessibleWhenUnlocked`'s class. An app that reads its keychain at a launch before
/// the first unlock (a prewarm, a background wake) waits for ``didBecomeAvailable``.
public enum ProtectedDataEvent: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// The device locked: whenUnlocked data is about to be out of reach.
    case willBecomeUnavailable = "protectedDataWillBecomeUnavailable"
    /// The device unlocked: whenUnlocked data (and, at the first unlock since boot,
    /// afterFirstUnlock data) is in reach again.
    case didBecomeAvailable = "protectedDataDidBecomeAvailable"

    /// The event a change of lock state from `old` to `new` posts; nil when protected data
    /// stays as available as it was (a reboot of a locked device posts nothing).
    public init?(from old: DeviceLockState, to new: DeviceLockState) {
        switch (old.isProtectedDataAvailable, new.isProtectedDataAvailable) {
        case (true, false): self = .willBecomeUnavailable
        case (false, true): self = .didBecomeAvailable
        default: return nil
        }
    }

    /// The notification's name.
    public var description: String { rawValue }
}

/// One protected-data event as the device posted it: which, when, and the lock state it left.
public struct ProtectedDataNotification: Sendable, Hashable, Codable {
    /// Which notification.
    public let event: ProtectedDataEvent
    /// When the device posted it.
    public let time: Date
    /// The device's lock state once the change was made.
    public let state: DeviceLockState

    /// - Parameters: see the properties.
    public init(event: ProtectedDataEvent, time: Date, state: DeviceLockState) {
        self.event = event
        self.time = time
        self.state = state
    }
}

/// Whether items of one accessibility class are in reach in a lock state, and why not.
public struct ProtectedDataAvailability: Sendable, Hashable, Codable {
    /// The class (`kSecAttrAccessible`).
    public let accessibility: Accessibility
    /// Whether its items can be read and written now.
    public let available: Bool
    /// Why not, in words (`the device is locked`); nil when available.
    public let reason: String?

    /// The availability of `accessibility` in `state`.
    public init(_ accessibility: Accessibility, in state: DeviceLockState) {
        self.accessibility = accessibility
        available = state.allows(accessibility.protection)
        switch accessibility.protection {
        case _ where available: reason = nil
        case .untilUnlocked: reason = "the device is locked"
        case .untilFirstUnlock: reason = "the device was not unlocked since it booted"
        case .none: reason = nil
        }
    }
}

extension DeviceLockState {
    /// `UIApplication.isProtectedDataAvailable`: whether `NSFileProtectionComplete` data, and
    /// so whenUnlocked keychain items, can be used now. False while the device is locked, which
    /// includes every moment between a reboot and the first unlock.
    public var isProtectedDataAvailable: Bool { !locked }

    /// Whether each accessibility class is in reach now, in Apple's order.
    public var protectedDataAvailability: [ProtectedDataAvailability] {
        Accessibility.allCases.map { ProtectedDataAvailability($0, in: self) }
    }

    /// Before the first unlock since boot: the window a prewarmed launch or a background wake
    /// after a reboot runs in, where afterFirstUnlock items are out of reach too.
    public var isBeforeFirstUnlock: Bool { !unlockedSinceBoot }
}

extension Device {
    /// `UIApplication.isProtectedDataAvailable` on this device now (``DeviceLockState/isProtectedDataAvailable``).
    public func isProtectedDataAvailable() throws(DeviceError) -> Bool {
        try lockState().isProtectedDataAvailable
    }

    /// The protected-data events the device posts from now on, in any process that changes its
    /// lock: ``ProtectedDataWatch/events`` until ``ProtectedDataWatch/cancel()``.
    /// - Parameter pollInterval: how often the event journal is looked at, in seconds.
    public func protectedDataEvents(pollInterval: Double = 0.02) -> ProtectedDataWatch {
        ProtectedDataWatch(journal: protectedDataJournal, pollInterval: pollInterval)
    }

    /// Returns once protected data is available: at once when it is, otherwise at the next
    /// ``ProtectedDataEvent/didBecomeAvailable``, as an app that observes
    /// `protectedDataDidBecomeAvailableNotification` before reading its keychain. Subscribes
    /// before it looks at the lock, so an unlock in between is never missed.
    /// - Throws: ``DeviceError`` when the lock state cannot be read; `CancellationError` when
    ///   the task is cancelled first.
    public func protectedDataDidBecomeAvailable() async throws {
        let watch = protectedDataEvents()
        defer { watch.cancel() }
        if try isProtectedDataAvailable() { return }
        for await notification in watch.events where notification.event == .didBecomeAvailable { return }
        try Task.checkCancellation()
    }

    /// The journal the device's lock changes post their events to.
    var protectedDataJournal: ProtectedDataJournal {
        ProtectedDataJournal(url: directory.appendingPathComponent("protected-data.ndjson"))
    }
}
