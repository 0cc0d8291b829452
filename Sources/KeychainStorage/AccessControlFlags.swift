import Foundation

/// What an item with an access control asks for when it is used: user presence, biometry, the
/// passcode. Apple's bit values, so flags combine and compare as on Apple's platforms; Keychain
/// Services' `SecAccessControlCreateFlags` is this type.
public struct AccessControlFlags: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    public static let userPresence = AccessControlFlags(rawValue: 1 << 0)
    public static let biometryAny = AccessControlFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = AccessControlFlags(rawValue: 1 << 3)
    public static let devicePasscode = AccessControlFlags(rawValue: 1 << 4)
    public static let watch = AccessControlFlags(rawValue: 1 << 5)
    public static let or = AccessControlFlags(rawValue: 1 << 14)
    public static let and = AccessControlFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = AccessControlFlags(rawValue: 1 << 30)
    public static let applicationPassword = AccessControlFlags(rawValue: 1 << 31)
    /// The names before biometry covered Face ID.
    public static let touchIDAny = biometryAny
    public static let touchIDCurrentSet = biometryCurrentSet

    /// The flags that make the device ask the user before the item's data is used.
    public static let asksTheUser: AccessControlFlags = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .watch]

    /// Whether using the item asks the user (presence, biometry, passcode or a watch).
    public var asksUser: Bool { !intersection(.asksTheUser).isEmpty }
}
