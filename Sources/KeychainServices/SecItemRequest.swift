import Foundation
import SharedKeychain

/// Why a SecItem call failed: the status it returns, and what a person can do about it (logged,
/// never returned: SecItem calls return only the status). Never holds secret data.
struct SecItemFailure: Error, Sendable {
    let status: OSStatus
    let message: String

    static func param(_ message: String) -> SecItemFailure { SecItemFailure(status: errSecParam, message: message) }
    static func unimplemented(_ message: String) -> SecItemFailure { SecItemFailure(status: errSecUnimplemented, message: message) }

    init(status: OSStatus, message: String) {
        self.status = status
        self.message = message
    }

    init(_ error: KeychainError) {
        self.init(status: error.status.rawValue, message: error.message)
    }
}

/// One SecItem dictionary, read and checked before anything is touched: an unknown key, a
/// value of the wrong type or a class other than generic passwords fails here, as Apple's
/// does, with errSecParam or errSecUnimplemented.
struct SecItemRequest {
    /// What the dictionary is for: which keys it may hold.
    enum Purpose {
        case add, search, update, delete
    }

    /// The kinds of result asked for with `kSecReturn...`.
    struct Returns: OptionSet {
        let rawValue: Int
        static let data = Returns(rawValue: 1)
        static let attributes = Returns(rawValue: 2)
        static let persistentRef = Returns(rawValue: 4)
        /// `kSecReturnRef`: accepted; a password has no object to return, so alone it gives the
        /// persistent reference, and with others it adds nothing.
        static let reference = Returns(rawValue: 8)
    }


    var account: String?
    var service: String?
    var group: String?
    var generic: Data?
    var type: Int?
    var label: String?
    var comment: String?
    var itemDescription: String?
    var creator: String?
    var accessibility: Accessibility?
    /// `kSecAttrSynchronizable`: absent is "not synchronizable" (Apple's default), nil is
    /// `kSecAttrSynchronizableAny`.
    var synchronizable: Bool? = false
    var synchronizableGiven = false
    var data: Data?
    var persistentRef: PrimaryKey?
    var returns: Returns = []
    var limit: MatchLimit = .one

    /// Reads `dictionary` for `purpose`. A class the emulator does not store (keys,
    /// certificates, identities) ends the call: errSecItemNotFound for a search, update or
    /// delete, as on a device that holds none; errSecUnimplemented for an add.
    init(_ dictionary: CFDictionary, for purpose: Purpose) throws(SecItemFailure) {
        let dictionary = try Self.entries(of: dictionary)
        if purpose != .update {
            guard let itemClass = dictionary[kSecClass] else {
                throw .param("the dictionary has no kSecClass; generic passwords need kSecClass: kSecClassGenericPassword")
            }
            try Self.checkClass(itemClass, for: purpose)
        } else if let itemClass = dictionary[kSecClass] {
            try Self.checkClass(itemClass, for: purpose)
        }
        for (key, value) in dictionary {
            try read(key, value, for: purpose)
        }
        if purpose == .add, synchronizableGiven, synchronizable == nil {
            throw .param("kSecAttrSynchronizableAny is for searches; an item to add is synchronizable (true) or not (false)")
        }
    }

    /// The dictionary's entries by string key: `as CFDictionary` accepts `[String?: AnyObject]`
    /// and NSDictionaries, whose keys need not be strings.
    private static func entries(of dictionary: CFDictionary) throws(SecItemFailure) -> [String: Any] {
        var entries: [String: Any] = [:]
        for (key, value) in dictionary {
            guard let name = key as? String else { throw .param("every key must be a kSec... constant (a string), not \(key)") }
            entries[name] = value
        }
        return entries
    }

    private static func checkClass(_ value: Any, for purpose: Purpose) throws(SecItemFailure) {
        guard let name = value as? String else { throw .param("kSecClass must be a kSec... class constant (a string)") }
        switch name {
        case kSecClassGenericPassword: return
        case kSecClassKey, kSecClassCertificate, kSecClassIdentity:
            let className = name == kSecClassKey ? "kSecClassKey" : name == kSecClassCertificate ? "kSecClassCertificate" : "kSecClassIdentity"
            guard purpose == .add else {
                // The device holds none: "wipe everything" loops over every class see nothing to do.
                throw SecItemFailure(status: errSecItemNotFound, message: "no \(className) items exist here: the emulator stores passwords only")
            }
            throw .unimplemented("adding \(className) items is not implemented: the emulator stores passwords only")
        case kSecClassInternetPassword:
            throw .unimplemented("internet passwords (kSecClassInternetPassword) are not implemented yet; generic passwords are")
        default:
            throw .param("kSecClass '\(name)' is not a keychain item class")
        }
    }

    private mutating func read(_ key: String, _ value: Any, for purpose: Purpose) throws(SecItemFailure) {
        switch key {
        case kSecClass: return
        case kSecAttrAccount: account = try Self.string(value, key: "kSecAttrAccount")
        case kSecAttrService: service = try Self.string(value, key: "kSecAttrService")
        case kSecAttrAccessGroup:
            guard purpose != .update else {
                throw .unimplemented("moving an item to another access group (kSecAttrAccessGroup in the attributes to update) is not implemented; delete it and add it to the other group")
            }
            group = try Self.string(value, key: "kSecAttrAccessGroup")
        case kSecAttrGeneric: generic = try Self.data(value, key: "kSecAttrGeneric")
        case kSecAttrType: type = try Self.fourCharCode(value, key: "kSecAttrType")
        case kSecAttrCreator: creator = String(try Self.fourCharCode(value, key: "kSecAttrCreator"))
        case kSecAttrLabel: label = try Self.string(value, key: "kSecAttrLabel")
        case kSecAttrComment: comment = try Self.string(value, key: "kSecAttrComment")
        case kSecAttrDescription: itemDescription = try Self.string(value, key: "kSecAttrDescription")
        case kSecAttrAccessible:
            let name = try Self.string(value, key: "kSecAttrAccessible")
            guard let known = Accessibility(secValue: name) else {
                throw .param("kSecAttrAccessible '\(name)' is not one of the kSecAttrAccessible... constants")
            }
            accessibility = known
        case kSecAttrSynchronizable:
            synchronizableGiven = true
            if let name = value as? String, name == kSecAttrSynchronizableAny {
                synchronizable = nil
            } else {
                synchronizable = try Self.bool(value, key: "kSecAttrSynchronizable")
            }
        case kSecValueData:
            guard purpose == .add || purpose == .update else { return }
            data = try Self.data(value, key: "kSecValueData")
        case kSecValuePersistentRef:
            guard purpose == .search || purpose == .delete || purpose == .update else {
                throw .param("kSecValuePersistentRef finds an item; it cannot be given to SecItemAdd")
            }
            persistentRef = try PersistentReference.key(from: try Self.data(value, key: "kSecValuePersistentRef"))
        case kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef:
            guard purpose == .add || purpose == .search else {
                throw .param("\(Self.name(of: key)) asks for a result; SecItemUpdate and SecItemDelete return none")
            }
            let wanted = try Self.bool(value, key: Self.name(of: key))
            let kind: Returns = key == kSecReturnData ? .data : key == kSecReturnAttributes ? .attributes : .persistentRef
            if wanted { returns.insert(kind) } else { returns.remove(kind) }
        case kSecReturnRef:
            guard purpose == .add || purpose == .search else {
                throw .param("kSecReturnRef asks for a result; SecItemUpdate and SecItemDelete return none")
            }
            if try Self.bool(value, key: "kSecReturnRef") { returns.insert(.reference) } else { returns.remove(.reference) }
        case kSecValueRef:
            throw .unimplemented("kSecValueRef names a key, certificate or identity object, which do not exist here; passwords are found by their attributes or kSecValuePersistentRef")
        case kSecMatchLimit:
            guard purpose == .search || purpose == .delete else {
                throw .param("kSecMatchLimit limits a search; it does not belong in \(purpose == .add ? "SecItemAdd" : "the attributes to update")")
            }
            limit = try Self.matchLimit(value)
        case kSecUseDataProtectionKeychain:
            _ = try Self.bool(value, key: "kSecUseDataProtectionKeychain")
        case kSecUseAuthenticationUI, kSecUseOperationPrompt, kSecUseAuthenticationContext:
            // No UI exists: accepted and ignored, as on a device that never needs to prompt.
            return
        case kSecUseNoAuthenticationUI:
            _ = try Self.bool(value, key: "kSecUseNoAuthenticationUI")
        case kSecAttrAccessControl:
            guard purpose == .add || purpose == .update else {
                throw .param("kSecAttrAccessControl is an attribute of an item to add or update, not of a search")
            }
            guard let control = value as? SecAccessControl else {
                throw .param("kSecAttrAccessControl must be a SecAccessControl made by SecAccessControlCreateWithFlags")
            }
            // The protection class becomes the item's accessibility, so the device's lock applies.
            accessibility = control.protection
        case kSecAttrServer, kSecAttrProtocol, kSecAttrPort, kSecAttrPath, kSecAttrAuthenticationType, kSecAttrSecurityDomain:
            throw .param("\(Self.name(of: key)) is an internet-password attribute; generic passwords do not have it")
        case kSecAttrIsInvisible, kSecAttrIsNegative, kSecMatchCaseInsensitive:
            throw .unimplemented("\(Self.name(of: key)) is not implemented")
        default:
            throw .param("'\(key)' is not a Keychain Services key for generic passwords")
        }
    }

    // MARK: What the keychain core takes

    /// The query for `copyMatching`, `update` and `delete`; a persistent reference pins the
    /// group, account and service.
    var query: KeychainQuery {
        var filters = ItemQuery.Filters(
            label: label, comment: comment, itemDescription: itemDescription, creator: creator, accessibility: accessibility,
            synchronizable: synchronizable)
        if persistentRef != nil { filters.synchronizable = synchronizableGiven ? synchronizable : nil }
        return KeychainQuery(
            group: persistentRef?.group ?? group, account: persistentRef?.account ?? account,
            service: persistentRef?.service ?? service, generic: generic, type: type, filters: filters)
    }

    /// The item `SecItemAdd` adds.
    var newItem: NewItem {
        NewItem(
            account: account ?? "", service: service ?? "", group: group, generic: generic, type: type, label: label,
            comment: comment, itemDescription: itemDescription, creator: creator, data: data ?? Data(),
            accessibility: accessibility ?? .whenUnlocked, synchronizable: synchronizable ?? false)
    }

    /// The change `SecItemUpdate`'s attributes to update make.
    var change: ItemChange {
        ItemChange(
            account: account, service: service, generic: generic, type: type, label: label, comment: comment,
            itemDescription: itemDescription, creator: creator, accessibility: accessibility,
            synchronizable: synchronizableGiven ? synchronizable : nil, data: data)
    }

    // MARK: Values

    private static func string(_ value: Any, key: String) throws(SecItemFailure) -> String {
        guard let text = value as? String else { throw .param("\(key) must be a string, not \(Swift.type(of: value))") }
        return text
    }

    private static func data(_ value: Any, key: String) throws(SecItemFailure) -> Data {
        guard let bytes = value as? Data else { throw .param("\(key) must be Data, not \(Swift.type(of: value))") }
        return bytes
    }

    private static func bool(_ value: Any, key: String) throws(SecItemFailure) -> Bool {
        if let flag = value as? Bool { return flag }
        if let number = integer(value), number == 0 || number == 1 { return number == 1 }
        throw .param("\(key) must be a boolean (true, false, kCFBooleanTrue or kCFBooleanFalse), not \(Swift.type(of: value))")
    }

    /// A `FourCharCode` (`kSecAttrType`, `kSecAttrCreator`): a number from 0 to 2^32-1.
    private static func fourCharCode(_ value: Any, key: String) throws(SecItemFailure) -> Int {
        guard let number = integer(value), (0...Int(UInt32.max)).contains(number) else {
            throw .param("\(key) must be a number from 0 to 4294967295 (a FourCharCode), not \(Swift.type(of: value)) \(value)")
        }
        return number
    }

    private static func matchLimit(_ value: Any) throws(SecItemFailure) -> MatchLimit {
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
        return names[key] ?? key
    }
}

/// `kSecValuePersistentRef`: bytes that name one item for as long as it keeps its primary key
/// (a JSON array of class, group, account and service).
enum PersistentReference {
    static func data(for item: KeychainItem) -> Data {
        // Encoding an array of strings cannot fail.
        (try? JSONEncoder().encode([kSecClassGenericPassword, item.group, item.account, item.service])) ?? Data()
    }

    static func key(from data: Data) throws(SecItemFailure) -> PrimaryKey {
        guard let parts = try? JSONDecoder().decode([String].self, from: data), parts.count == 4, parts[0] == kSecClassGenericPassword
        else { throw .param("kSecValuePersistentRef is not a persistent reference this keychain returned") }
        return PrimaryKey(group: parts[1], account: parts[2], service: parts[3])
    }
}
