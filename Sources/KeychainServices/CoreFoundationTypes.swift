import Foundation

// The Core Foundation types keychain code names, as the Foundation classes they are toll-free
// bridged to on Apple's platforms. Each is a class, so it is an `AnyObject` and `Hashable`, and
// swift-corelibs-foundation bridges it with `as`, `as?` and forced casts in both directions, as on
// Apple's platforms: `kSecClass as String`, `data as CFData`, `result as? Data`,
// a forced cast of a result to `CFData`, `query as CFDictionary`, `result as? [String: Any]`.

/// `CFDictionary`: a query or attribute dictionary. `NSDictionary`, so every dictionary real
/// code builds converts with `as CFDictionary`: `[String: Any]`, `[String: AnyObject]`,
/// `[String: AnyHashable]`, `[String?: AnyObject]`, `NSMutableDictionary`.
public typealias CFDictionary = NSDictionary
/// `CFMutableDictionary`.
public typealias CFMutableDictionary = NSMutableDictionary
/// `CFTypeRef`: any Core Foundation object; a SecItem result (`CFData`, `CFDictionary`,
/// `CFArray` of either).
public typealias CFTypeRef = AnyObject
/// `CFString`: every `kSec...` key and value. `NSString`: `kSecClass as String` and
/// `"name" as CFString` convert as on Apple's platforms.
public typealias CFString = NSString
// A `CFString` in an `AnyHashable` is the `String` it bridges to, as Apple's Foundation has it
// and swift-corelibs-foundation does not: code reading a result as `[AnyHashable: Any]` looks
// attributes up by the constant itself (`attributes[kSecAttrAccount]`, SwiftKeychainWrapper's
// `allKeys()`), and that key must equal the `String` key the result holds.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// The `String` this string bridges to, as the `AnyHashable` that stands for it.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(self as String)
    }
}

/// `CFMutableString`.
public typealias CFMutableString = NSMutableString
/// `CFData`: `NSData`, so `data as CFData`, a forced cast of a result to `CFData`, and `result as? Data` work.
public typealias CFData = NSData
/// `CFMutableData`.
public typealias CFMutableData = NSMutableData
/// `CFArray`: `NSArray`, what a search with `kSecMatchLimitAll` returns.
public typealias CFArray = NSArray
/// `CFMutableArray`.
public typealias CFMutableArray = NSMutableArray
/// `CFBoolean`, as in ``kCFBooleanTrue``.
public typealias CFBoolean = NSNumber
/// `CFNumber`.
public typealias CFNumber = NSNumber
/// `CFDate`: what `kSecAttrCreationDate` and `kSecAttrModificationDate` hold.
public typealias CFDate = NSDate
/// `OSStatus`: what every SecItem function returns.
public typealias OSStatus = Int32
/// `CFIndex`.
public typealias CFIndex = Int
/// `CFOptionFlags`.
public typealias CFOptionFlags = UInt
/// `CFTypeID`: which Core Foundation type an object is, as ``CFGetTypeID(_:)`` tells.
public typealias CFTypeID = UInt

/// `CFAllocator`: there is one allocator here, so code passes ``kCFAllocatorDefault`` (nil on
/// Apple's platforms too) and nothing reads it.
public final class CFAllocator: Sendable {
    private init() {}
}

/// `kCFAllocatorDefault`: NULL, as on Apple's platforms.
public let kCFAllocatorDefault: CFAllocator! = nil

/// `CFError`: a domain, a code and a user-info dictionary; thrown as an `Error`, as Apple's
/// bridges to `NSError`. `SecAccessControlCreateWithFlags` reports failures with one.
public final class CFError: Error, @unchecked Sendable, CustomStringConvertible {
    // @unchecked: immutable after init; the dictionary holds only strings.
    let domain: String
    let code: Int
    let userInfo: [String: Any]

    init(domain: String, code: Int, description: String) {
        self.domain = domain
        self.code = code
        self.userInfo = ["NSDescription": description]
    }

    public var description: String { "\(domain) \(code): \(userInfo["NSDescription"] ?? "")" }
}

/// The domain of `error` (`NSOSStatusErrorDomain` for keychain failures).
public func CFErrorGetDomain(_ error: CFError!) -> CFString! { error.map { $0.domain as CFString } }
/// The code of `error` (an `OSStatus` for keychain failures).
public func CFErrorGetCode(_ error: CFError!) -> CFIndex { error?.code ?? 0 }
/// The user info of `error` (`NSDescription`: what went wrong).
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! { (error?.userInfo ?? [:]) as NSDictionary }

/// `kCFBooleanTrue`; implicitly unwrapped as Apple's, so `kCFBooleanTrue!` compiles too.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
/// `kCFBooleanFalse`.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// The value of a `CFBoolean`.
public func CFBooleanGetValue(_ boolean: CFBoolean!) -> Bool { boolean?.boolValue ?? false }

// MARK: Type identifiers

/// Which Core Foundation type `object` is, compared with ``CFStringGetTypeID()`` and the other
/// `...GetTypeID()` functions. The numbers are Apple's on current systems; code compares them
/// with each other, never with literals.
public func CFGetTypeID(_ object: CFTypeRef!) -> CFTypeID {
    switch object {
    case is NSString: CFStringGetTypeID()
    case is NSData: CFDataGetTypeID()
    case is NSDictionary: CFDictionaryGetTypeID()
    case is NSArray: CFArrayGetTypeID()
    case is NSDate: CFDateGetTypeID()
    case let number as NSNumber:
        // Booleans are the two shared instances, as Apple's kCFBooleanTrue and kCFBooleanFalse.
        number === NSNumber(value: true) || number === NSNumber(value: false) ? CFBooleanGetTypeID() : CFNumberGetTypeID()
    case is SecAccessControl: SecAccessControlGetTypeID()
    default: 0
    }
}

/// The type identifier of every `CFString`.
public func CFStringGetTypeID() -> CFTypeID { 7 }
/// The type identifier of every `CFDictionary`.
public func CFDictionaryGetTypeID() -> CFTypeID { 18 }
/// The type identifier of every `CFArray`.
public func CFArrayGetTypeID() -> CFTypeID { 19 }
/// The type identifier of every `CFData`.
public func CFDataGetTypeID() -> CFTypeID { 20 }
/// The type identifier of ``kCFBooleanTrue`` and ``kCFBooleanFalse``.
public func CFBooleanGetTypeID() -> CFTypeID { 21 }
/// The type identifier of every `CFNumber` that is not a boolean.
public func CFNumberGetTypeID() -> CFTypeID { 22 }
/// The type identifier of every `CFDate`.
public func CFDateGetTypeID() -> CFTypeID { 42 }

// MARK: Bundle keys

// The Info.plist keys code passes to `Bundle.main.object(forInfoDictionaryKey:)`, with Apple's
// values; Foundation brings them in on Apple's platforms.

/// `CFBundleIdentifier`: the app's bundle ID.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString = "CFBundleIdentifier"
/// `CFBundleName`.
nonisolated(unsafe) public let kCFBundleNameKey: CFString = "CFBundleName"
/// `CFBundleVersion`.
nonisolated(unsafe) public let kCFBundleVersionKey: CFString = "CFBundleVersion"
/// `CFBundleExecutable`.
nonisolated(unsafe) public let kCFBundleExecutableKey: CFString = "CFBundleExecutable"
/// `CFBundleInfoDictionaryVersion`.
nonisolated(unsafe) public let kCFBundleInfoDictionaryVersionKey: CFString = "CFBundleInfoDictionaryVersion"
/// `CFBundleDevelopmentRegion`.
nonisolated(unsafe) public let kCFBundleDevelopmentRegionKey: CFString = "CFBundleDevelopmentRegion"
/// `CFBundleLocalizations`.
nonisolated(unsafe) public let kCFBundleLocalizationsKey: CFString = "CFBundleLocalizations"

// MARK: Data

/// The number of bytes in `data`.
public func CFDataGetLength(_ data: CFData!) -> CFIndex { data?.length ?? 0 }
