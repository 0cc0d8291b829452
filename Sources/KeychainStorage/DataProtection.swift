/// `kSecAttrAccessible`: when an item can be used, by the device's lock state. Apple's names;
/// ``secValue`` is the constant's value on iOS (`kSecAttrAccessibleWhenUnlocked` is `"ak"`).
/// Not part of the primary key.
public enum Accessibility: String, Sendable, Hashable, Codable, CaseIterable {
    /// The default: only while the device is unlocked.
    case whenUnlocked
    /// Once the device was unlocked after its last reboot, locked or not (background work).
    case afterFirstUnlock
    /// Always (deprecated by Apple).
    case always
    /// While unlocked, and only on a device with a passcode.
    case whenPasscodeSetThisDeviceOnly
    case whenUnlockedThisDeviceOnly
    case afterFirstUnlockThisDeviceOnly
    case alwaysThisDeviceOnly

    /// Apple's constant value.
    public var secValue: String {
        switch self {
        case .whenUnlocked: "ak"
        case .afterFirstUnlock: "ck"
        case .always: "dk"
        case .whenPasscodeSetThisDeviceOnly: "akpu"
        case .whenUnlockedThisDeviceOnly: "aku"
        case .afterFirstUnlockThisDeviceOnly: "cku"
        case .alwaysThisDeviceOnly: "dku"
        }
    }

    /// The class from Apple's constant value; nil for anything else.
    public init?(secValue: String) {
        guard let match = Self.allCases.first(where: { $0.secValue == secValue }) else { return nil }
        self = match
    }

    /// What protects items of this class.
    public var protection: ProtectionClass {
        switch self {
        case .whenUnlocked, .whenPasscodeSetThisDeviceOnly, .whenUnlockedThisDeviceOnly: .untilUnlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .untilFirstUnlock
        case .always, .alwaysThisDeviceOnly: .none
        }
    }
}

/// The three protection levels behind the accessibility classes. Items of one level can be
/// locked together (the Secret Service store keeps each level in collections of its own).
public enum ProtectionClass: String, Sendable, Hashable, Codable, CaseIterable {
    /// Unreadable while the device is locked.
    case untilUnlocked
    /// Unreadable from a reboot until the first unlock.
    case untilFirstUnlock
    /// Never locked.
    case none
}

/// The device's lock state: whether it is locked, and whether it was unlocked since it booted.
/// A new device is booted and unlocked.
public struct DeviceLockState: Sendable, Hashable, Codable {
    public var locked: Bool
    public var unlockedSinceBoot: Bool

    public init(locked: Bool = false, unlockedSinceBoot: Bool = true) {
        self.locked = locked
        self.unlockedSinceBoot = unlockedSinceBoot
    }

    /// Unlocked, and unlocked since boot.
    public static let unlocked = DeviceLockState()

    /// Whether items protected by `protection` can be used now.
    public func allows(_ protection: ProtectionClass) -> Bool {
        switch protection {
        case .untilUnlocked: !locked
        case .untilFirstUnlock: unlockedSinceBoot
        case .none: true
        }
    }

    /// The protection levels whose items cannot be used now.
    public var lockedClasses: Set<ProtectionClass> {
        Set(ProtectionClass.allCases.filter { !allows($0) })
    }
}

/// Where a store learns the device's lock state, asked on every operation (another process may
/// lock the device at any time). Nil on a store: no device, everything accessible.
public typealias DeviceLockProvider = @Sendable () -> DeviceLockState
