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
/// value of the wrong type, an attribute the class does not have or a class other than
/// passwords and keys fails here, as Apple's does, with errSecParam or errSecUnimplemented.
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

    /// `kSecClass`; nil only in the attributes to update, which take the query's.
    var itemClass: ItemClass?
    /// `kSecAttrAccount` and `kSecAttrService` in the type given (`String` or `Data`).
    var account: AttributeValue?
    var service: AttributeValue?
    /// The internet-password attributes given.
    var internet = InternetFields()
    /// `kSecAttrAccessControl`'s flags.
    var accessControl: AccessControlFlags?
    /// `kSecUseAuthenticationUI` (or `kSecUseNoAuthenticationUI: true`, which is `.fail`).
    var authenticationUI: AuthenticationUI = .allow
    var group: String?
    var generic: Data?
    var type: UInt32?
    var label: String?
    var comment: String?
    var itemDescription: String?
    var creator: UInt32?
    var accessibility: Accessibility?
    /// `kSecAttrSynchronizable`: absent is "not synchronizable" (Apple's default), nil is
    /// `kSecAttrSynchronizableAny`.
    var synchronizable: Bool? = false
    var synchronizableGiven = false
    var data: Data?
    var persistentRef: (key: PrimaryKey, complete: Bool)?
    /// The key-item attributes given (`kSecClassKey`): class, label, tag, type and sizes.
    var key = KeyFields()
    var returns: Returns = []
    var limit: MatchLimit = .one

    /// Reads `dictionary` for `purpose`. A class the emulator does not store (certificates,
    /// identities) ends the call: errSecItemNotFound for a search, update or delete, as on a
    /// device that holds none; errSecUnimplemented for an add. A search or delete by
    /// `kSecValuePersistentRef` needs no `kSecClass`: the reference names the item's class.
    /// `queryClass` is the class of the query whose attributes to update these are (the
    /// meaning of `kSecAttrKeyType`, which is `kSecAttrType`, depends on it).
    init(_ dictionary: CFDictionary, for purpose: Purpose, queryClass: ItemClass? = nil) throws(SecItemFailure) {
        let dictionary = try Self.entries(of: dictionary)
        if let itemClass = dictionary[kSecClass] {
            self.itemClass = try Self.checkClass(itemClass, for: purpose)
        } else if purpose == .search || purpose == .delete, let reference = dictionary[kSecValuePersistentRef] {
            // Migration code reads each item back by the reference it listed, with no class.
            self.itemClass = try PersistentReference.key(from: try Self.data(reference, key: "kSecValuePersistentRef")).key.itemClass
        } else if purpose != .update {
            throw .param("the dictionary has no kSecClass; generic passwords need kSecClass: kSecClassGenericPassword")
        } else {
            self.itemClass = queryClass
        }
        for (key, value) in dictionary {
            try read(key, value, for: purpose)
        }
        if let itemClass { try checkAttributes(of: itemClass) }
        if itemClass == .key, returns.contains(.reference), purpose == .add || purpose == .search {
            throw .unimplemented("kSecReturnRef asks for SecKey objects, which are not implemented here; ask kSecReturnData for the key's bytes")
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

    /// Fails unless every attribute given belongs to `itemClass`: generic passwords have no
    /// internet attributes, internet passwords no service.
    func checkAttributes(of itemClass: ItemClass) throws(SecItemFailure) {
        switch itemClass {
        case .key:
            try checkKeyAttributes()
        case .genericPassword where !internet.isEmpty:
            throw .param("kSecAttrServer, kSecAttrProtocol, kSecAttrPort, kSecAttrPath, kSecAttrAuthenticationType and kSecAttrSecurityDomain are internet-password attributes; generic passwords do not have them")
        case .internetPassword where service != nil:
            throw .param("kSecAttrService is a generic-password attribute; internet passwords are named by kSecAttrServer and the other internet attributes")
        default:
            return
        }
    }

    private static func checkClass(_ value: Any, for purpose: Purpose) throws(SecItemFailure) -> ItemClass {
        guard let name = value as? String else { throw .param("kSecClass must be a kSec... class constant (a string)") }
        switch name {
        case kSecClassGenericPassword: return .genericPassword
        case kSecClassInternetPassword: return .internetPassword
        case kSecClassKey: return .key
        case kSecClassCertificate, kSecClassIdentity:
            let className = name == kSecClassCertificate ? "kSecClassCertificate" : "kSecClassIdentity"
            guard purpose == .add else {
                // "Wipe everything" loops over every class see nothing to do.
                throw SecItemFailure(
                    status: errSecItemNotFound, message: "no \(className) items are reachable through SecItem here: it reaches passwords and keys only")
            }
            throw .unimplemented("adding \(className) items is not implemented: the emulator stores passwords and keys only")
        default:
            throw .param("kSecClass '\(name)' is not a keychain item class")
        }
    }

    private mutating func read(_ key: String, _ value: Any, for purpose: Purpose) throws(SecItemFailure) {
        if purpose == .delete, [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef, kSecReturnRef].contains(key as CFString) {
            // SecItemDelete returns nothing; iOS ignores what a search query reused as its base asks for.
            _ = try Self.bool(value, key: Self.name(of: key))
            return
        }
        switch key {
        case kSecClass: return
        case kSecAttrAccount: account = try Self.attribute(value, key: "kSecAttrAccount")
        case kSecAttrService: service = try Self.attribute(value, key: "kSecAttrService")
        case kSecAttrServer: internet.server = try Self.string(value, key: "kSecAttrServer")
        case kSecAttrSecurityDomain: internet.securityDomain = try Self.string(value, key: "kSecAttrSecurityDomain")
        case kSecAttrProtocol: internet.protocol = try Self.string(value, key: "kSecAttrProtocol")
        case kSecAttrAuthenticationType: internet.authenticationType = try Self.string(value, key: "kSecAttrAuthenticationType")
        case kSecAttrPort: internet.port = try Self.port(value)
        case kSecAttrPath: internet.path = try Self.string(value, key: "kSecAttrPath")
        case kSecAttrAccessGroup:
            // In the attributes to update, the group the items move to (`SecItemUpdate`).
            group = try Self.string(value, key: "kSecAttrAccessGroup")
        case kSecAttrGeneric: generic = try Self.data(value, key: "kSecAttrGeneric")
        case kSecAttrType where itemClass == .key: self.key.keyType = try Self.keyType(value)
        case kSecAttrType: type = try Self.fourCharCode(value, key: "kSecAttrType")
        case kSecAttrKeyClass, kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrKeySizeInBits, kSecAttrEffectiveKeySize,
            kSecAttrStartDate, kSecAttrEndDate, kSecAttrTokenID, kSecAttrIsPermanent, kSecAttrIsSensitive, kSecAttrIsExtractable,
            kSecAttrCanEncrypt, kSecAttrCanDecrypt, kSecAttrCanDerive, kSecAttrCanSign, kSecAttrCanVerify, kSecAttrCanWrap, kSecAttrCanUnwrap:
            try readKeyAttribute(key, value)
        case kSecAttrCreator: creator = try Self.fourCharCode(value, key: "kSecAttrCreator")
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
        case kSecUseAuthenticationUI:
            authenticationUI = try Self.authenticationUI(value)
        case kSecUseOperationPrompt, kSecUseAuthenticationContext:
            // The prompt's text and a LocalAuthentication context: the device's answer
            // (`device authentication`) stands for whatever the user would do.
            return
        case kSecUseNoAuthenticationUI:
            if try Self.bool(value, key: "kSecUseNoAuthenticationUI") { authenticationUI = .fail }
        case kSecAttrAccessControl:
            guard let control = value as? SecAccessControl else {
                throw .param("kSecAttrAccessControl must be a SecAccessControl made by SecAccessControlCreateWithFlags")
            }
            // Code that reuses its add query as the base of its searches and deletes (Valet's
            // Secure Enclave queries) passes it there too: iOS accepts it and finds by the rest.
            guard purpose == .add || purpose == .update else { return }
            // The protection class becomes the item's accessibility, so the device's lock applies;
            // the flags stay with the item, and those that ask the user are asked for on use.
            accessibility = control.protection
            accessControl = control.flags
        case kSecAttrIsInvisible, kSecAttrIsNegative, kSecMatchCaseInsensitive:
            throw .unimplemented("\(Self.name(of: key)) is not implemented")
        default:
            throw .param("'\(key)' is not a Keychain Services key for passwords")
        }
    }

    // MARK: What the keychain core takes

    /// The query for `copyMatching`, `update` and `delete`; a persistent reference pins the
    /// item's whole key (a reference of the first format all of it but the synchronizable flag).
    var query: KeychainQuery {
        var filters = ItemQuery.Filters(
            label: label, comment: comment, itemDescription: itemDescription, creator: creator, accessibility: accessibility,
            synchronizable: synchronizable, itemClass: itemClass, internet: internet, key: key)
        guard let (key, complete) = persistentRef else {
            return KeychainQuery(group: group, account: account?.key, service: service?.key, generic: generic, type: type, filters: filters)
        }
        filters.synchronizable = complete ? key.synchronizable : synchronizableGiven ? synchronizable : nil
        filters.itemClass = key.itemClass
        if let attributes = key.internet { filters.internet = InternetFields(attributes) }
        if let attributes = key.key { filters.key = KeyFields(attributes) }
        return KeychainQuery(group: key.group, account: key.account, service: key.service, generic: generic, type: type, filters: filters)
    }

    /// The item `SecItemAdd` adds.
    var newItem: NewItem {
        var item = NewItem(
            account: account?.key ?? "", service: service?.key ?? "", group: group, generic: generic, type: type, label: label,
            comment: comment, itemDescription: itemDescription, creator: creator, data: data ?? Data(),
            accessibility: accessibility ?? .whenUnlocked, synchronizable: synchronizable ?? false)
        item.accountIsData = account?.isData ?? false
        item.serviceIsData = service?.isData ?? false
        item.accessControl = accessControl
        if itemClass == .internetPassword { item.internet = internet.attributes }
        if itemClass == .key { item.key = key.attributes }
        return item
    }

    /// The change `SecItemUpdate`'s attributes to update make.
    var change: ItemChange {
        ItemChange(
            account: account?.key, service: service?.key, generic: generic, type: type, label: label, comment: comment,
            itemDescription: itemDescription, creator: creator, accessibility: accessibility,
            synchronizable: synchronizableGiven ? synchronizable : nil, data: data, accountIsData: account?.isData ?? false,
            serviceIsData: service?.isData ?? false, internet: internet, accessControl: accessControl)
    }
}
