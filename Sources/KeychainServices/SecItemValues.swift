import Foundation
import SharedKeychain

// The values SecItem dictionaries hold, read with Apple's types and ranges.
extension SecItemRequest {
    static func string(_ value: Any, key: String) throws(SecItemFailure) -> String {
        guard let text = value as? String else { throw .param("\(key) must be a string, not \(Swift.type(of: value))") }
        return text
    }

    /// `kSecAttrAccount` or `kSecAttrService`: a `String` or `Data`, kept in its type.
    static func attribute(_ value: Any, key: String) throws(SecItemFailure) -> AttributeValue {
        if let text = value as? String { return .string(text) }
        if let bytes = value as? Data { return .data(bytes) }
        throw .param("\(key) must be a String or Data, not \(Swift.type(of: value))")
    }

    /// `kSecAttrPort`: 0 to 65535.
    static func port(_ value: Any) throws(SecItemFailure) -> Int {
        guard let number = integer(value), (0...65535).contains(number) else {
            throw .param("kSecAttrPort must be a number from 0 to 65535, not \(Swift.type(of: value)) \(value)")
        }
        return number
    }

    /// `kSecUseAuthenticationUI`: one of its three constants.
    static func authenticationUI(_ value: Any) throws(SecItemFailure) -> AuthenticationUI {
        switch value as? String {
        case kSecUseAuthenticationUIAllow?: return .allow
        case kSecUseAuthenticationUIFail?: return .fail
        case kSecUseAuthenticationUISkip?: return .skip
        default:
            throw .param("kSecUseAuthenticationUI must be kSecUseAuthenticationUIAllow, kSecUseAuthenticationUIFail or kSecUseAuthenticationUISkip")
        }
    }

    static func data(_ value: Any, key: String) throws(SecItemFailure) -> Data {
        guard let bytes = value as? Data else { throw .param("\(key) must be Data, not \(Swift.type(of: value))") }
        return bytes
    }

    static func bool(_ value: Any, key: String) throws(SecItemFailure) -> Bool {
        if let flag = value as? Bool { return flag }
        if let number = integer(value), number == 0 || number == 1 { return number == 1 }
        throw .param("\(key) must be a boolean (true, false, kCFBooleanTrue or kCFBooleanFalse), not \(Swift.type(of: value))")
    }

    /// A `FourCharCode` (`kSecAttrType`, `kSecAttrCreator`): a number from 0 to 2^32-1, as
    /// Swift code passes one (an `NSNumber`, or a Swift integer of any width). A four-letter
    /// string is not converted: Apple's API takes the number (`'aapl'` is 0x6161706C).
    static func fourCharCode(_ value: Any, key: String) throws(SecItemFailure) -> UInt32 {
        guard let number = integer(value).flatMap({ UInt32(exactly: $0) }) else {
            throw .param("\(key) must be a number from 0 to 4294967295 (a FourCharCode), not \(Swift.type(of: value)) \(value)")
        }
        return number
    }

    static func matchLimit(_ value: Any) throws(SecItemFailure) -> MatchLimit {
        if let name = value as? String {
            switch name {
            case kSecMatchLimitOne: return .one
            case kSecMatchLimitAll: return .all
            default: throw .param("kSecMatchLimit '\(name)' is neither kSecMatchLimitOne nor kSecMatchLimitAll")
            }
        }
        guard let number = integer(value), number >= 1 else {
            throw .param("kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a number of at least 1")
        }
        return number == 1 ? .one : .count(number)
    }

    /// An integer however it was boxed: Swift integers of any width, or an `NSNumber` holding one.
    static func integer(_ value: Any) -> Int? {
        switch value {
        case let number as Int: number
        case let number as Int32: Int(number)
        case let number as UInt32: Int(number)
        case let number as Int64: Int(exactly: number)
        case let number as UInt64: Int(exactly: number)
        case let number as UInt: Int(exactly: number)
        case let number as Int16: Int(number)
        case let number as UInt16: Int(number)
        case is Bool: nil
        case let number as NSNumber: Int(exactly: number.doubleValue)
        default: nil
        }
    }

    /// Apple's constant name for a key, for messages.
    static func name(of key: String) -> String {
        let names = [
            kSecReturnData: "kSecReturnData", kSecReturnAttributes: "kSecReturnAttributes", kSecReturnRef: "kSecReturnRef",
            kSecReturnPersistentRef: "kSecReturnPersistentRef", kSecValueRef: "kSecValueRef",
            kSecAttrServer: "kSecAttrServer", kSecAttrProtocol: "kSecAttrProtocol", kSecAttrPort: "kSecAttrPort",
            kSecAttrPath: "kSecAttrPath", kSecAttrAuthenticationType: "kSecAttrAuthenticationType",
            kSecAttrSecurityDomain: "kSecAttrSecurityDomain", kSecAttrAccessControl: "kSecAttrAccessControl",
            kSecAttrIsInvisible: "kSecAttrIsInvisible", kSecAttrIsNegative: "kSecAttrIsNegative",
            kSecMatchCaseInsensitive: "kSecMatchCaseInsensitive",
        ]
        return names[key as CFString] ?? key
    }
}

/// `kSecValuePersistentRef`: bytes that name one item for as long as it keeps its primary key:
/// a JSON object `{"ref": 2, "key": <the primary key>}` (class, group, account, service,
/// synchronizable, internet attributes). References of the first format, a JSON array of class,
/// group, account and service, are still read; they name the item without its synchronizable flag.
enum PersistentReference {
    private struct Reference: Codable {
        var ref: Int
        var key: PrimaryKey
    }

    static func data(for item: KeychainItem) -> Data {
        // Encoding strings, numbers and flags cannot fail.
        (try? JSONEncoder().encode(Reference(ref: 2, key: item.primaryKey))) ?? Data()
    }

    /// The key the reference names, and whether it names its synchronizable flag too.
    static func key(from data: Data) throws(SecItemFailure) -> (key: PrimaryKey, complete: Bool) {
        if let reference = try? JSONDecoder().decode(Reference.self, from: data), reference.ref == 2 {
            return (reference.key, true)
        }
        guard let parts = try? JSONDecoder().decode([String].self, from: data), parts.count == 4, parts[0] == kSecClassGenericPassword
        else { throw .param("kSecValuePersistentRef is not a persistent reference this keychain returned") }
        return (PrimaryKey(group: parts[1], account: parts[2], service: parts[3]), false)
    }
}
