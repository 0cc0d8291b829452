import Foundation
import SharedKeychain

/// What an item with an access control asks for when it is used: user presence, biometry, the
/// passcode, with Apple's bit values (the storage layer's `AccessControlFlags`, which items keep).
public typealias SecAccessControlCreateFlags = AccessControlFlags

/// `SecAccessControl`: an item's protection class and what it asks for when used. An add with
/// `kSecAttrAccessControl` gives the item this protection class as its accessibility, so the
/// device's lock applies to it as to `kSecAttrAccessible`.
///
/// A class, as Apple's Core Foundation type is, and `Hashable` as every Core Foundation type is
/// (`CFEqual`): two access controls of the same protection and flags are equal, so code keeps
/// one in a `[String: AnyHashable]` query.
public final class SecAccessControl: Hashable, Sendable, CustomStringConvertible {
    /// The protection class, as `kSecAttrAccessible` would give it.
    public let protection: Accessibility
    public let flags: SecAccessControlCreateFlags

    init(protection: Accessibility, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }

    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags)
    }

    public var description: String { "SecAccessControl(\(protection.rawValue), flags: \(flags.rawValue))" }
}

/// The type identifier of every ``SecAccessControl``, as ``CFGetTypeID(_:)`` gives it.
public func SecAccessControlGetTypeID() -> CFTypeID { 301 }

/// Makes an access control of `protection` (a `kSecAttrAccessible...` value) and `flags`; nil,
/// with `error` set (NSOSStatusErrorDomain, errSecParam), for a protection that is not one of
/// Apple's, or flags for keys (`privateKeyUsage`) or app passwords, which a password item
/// cannot use.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: Any, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ message: String) -> SecAccessControl? {
        error?.pointee = Unmanaged.passRetained(CFError(domain: "NSOSStatusErrorDomain", code: Int(errSecParam), description: message))
        return nil
    }
    guard let name = protection as? String, let accessibility = Accessibility(secValue: name) else {
        return fail("the protection must be one of the kSecAttrAccessible... constants, not \(protection)")
    }
    if flags.contains(.privateKeyUsage) || flags.contains(.applicationPassword) {
        return fail("privateKeyUsage and applicationPassword are for keys and app-password items, which are not implemented")
    }
    return SecAccessControl(protection: accessibility, flags: flags)
}

/// `kSecRandomDefault`: the system's generator (nil, as on Apple's platforms).
public let kSecRandomDefault: SecRandomRef? = nil

/// `SecRandomRef`: which generator to use; there is one.
public final class SecRandomRef: Sendable {
    private init() {}
}

/// Fills `bytes` with `count` cryptographically random bytes from the system's generator
/// (`SystemRandomNumberGenerator`: the kernel's `getrandom` on Linux); returns `errSecSuccess`.
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    var generator = SystemRandomNumberGenerator()
    var filled = 0
    while filled < count {
        var word = generator.next()
        let chunk = min(MemoryLayout<UInt64>.size, count - filled)
        withUnsafeBytes(of: &word) { source in
            UnsafeMutableRawBufferPointer(start: bytes + filled, count: chunk).copyMemory(from: UnsafeRawBufferPointer(rebasing: source.prefix(chunk)))
        }
        filled += chunk
    }
    return errSecSuccess
}
