import Foundation

/// One item (a generic password; an internet password when ``internet`` is set; a key when
/// ``key`` is set) as a storage backend keeps it: the attributes Keychain Services defines for the class, and the secret data.
public struct StoredItem: Sendable, Hashable, Codable {
    /// The access group, in full (`ABCDE12345.com.microsoft.adalcache`).
    public var group: String
    /// `kSecAttrAccount`, in its storage form (``AttributeBytes``): the text itself for a
    /// string; ``accountValue`` gives it back in the type it was added with.
    public var account: String
    /// `kSecAttrService`, in its storage form (``AttributeBytes``); see ``serviceValue``.
    /// Internet passwords have none (empty).
    public var service: String
    /// Whether the account was given as `Data` (and is returned as `Data`).
    public var accountIsData: Bool
    /// Whether the service was given as `Data` (and is returned as `Data`).
    public var serviceIsData: Bool
    /// The internet-password attributes (`kSecClassInternetPassword`); nil for a generic password.
    public var internet: InternetAttributes?
    /// The key attributes (`kSecClassKey`); nil for a password. A key has empty account and service.
    public var key: KeyAttributes?
    /// The access control's flags (`kSecAttrAccessControl`), Apple's bit values; nil when the item
    /// has none. Flags that ask the user (``AccessControlFlags/asksTheUser``) are decided by the
    /// device's authentication when the item is used.
    public var accessControl: AccessControlFlags?
    /// `kSecAttrGeneric`: arbitrary bytes, searchable, not part of the primary key.
    public var generic: Data?
    /// `kSecAttrType`: a caller-set FourCharCode (an unsigned 32-bit number), absent unless set.
    /// MSAL stores its item kind here (2001 access token, ...).
    public var type: UInt32?
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrComment`.
    public var comment: String?
    /// `kSecAttrDescription`: a user-visible kind of item ("MSAL token").
    public var itemDescription: String?
    /// `kSecAttrCreator`: a caller-set FourCharCode (an unsigned 32-bit number), absent unless
    /// set. Apple records nothing here by itself; see ``provenance`` for who added the item.
    public var creator: UInt32?
    /// Which apps added and last modified the item: the emulator's own record, never an Apple
    /// attribute (a device keeps none); nil when unknown.
    public var provenance: Provenance?
    public var creationDate: Date
    public var modificationDate: Date
    /// The secret. Never logged, never printed by default.
    public var data: Data
    /// How many times the item was written: 1 when added, one more with every update. Not an
    /// Apple attribute: the project's compare-and-swap (``ItemChange/ifVersion``) rests on it.
    public var version: UInt64
    /// `kSecAttrAccessible`: when the item can be used, by the device's lock state.
    public var accessibility: Accessibility
    /// `kSecAttrSynchronizable`. Nothing syncs on Linux; the flag is kept and matched. As on
    /// Apple's platforms it is part of the primary key: a synchronizable and a local item may
    /// share account, service and group.
    public var synchronizable: Bool

    public init(
        group: String,
        account: String,
        service: String,
        generic: Data? = nil,
        type: UInt32? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: UInt32? = nil,
        provenance: Provenance? = nil,
        creationDate: Date,
        modificationDate: Date,
        data: Data,
        version: UInt64 = 1,
        accessibility: Accessibility = .whenUnlocked,
        synchronizable: Bool = false,
        accountIsData: Bool = false,
        serviceIsData: Bool = false,
        internet: InternetAttributes? = nil,
        accessControl: AccessControlFlags? = nil,
        key: KeyAttributes? = nil
    ) {
        self.group = group
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.label = label
        self.comment = comment
        self.itemDescription = itemDescription
        self.creator = creator
        self.provenance = provenance
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.data = data
        self.version = version
        self.accessibility = accessibility
        self.synchronizable = synchronizable
        self.accountIsData = accountIsData
        self.serviceIsData = serviceIsData
        self.internet = internet
        self.accessControl = accessControl
        self.key = key
    }

    /// `kSecClassKey` when the item has ``key`` attributes, `kSecClassInternetPassword` when it
    /// has ``internet`` attributes, else generic.
    public var itemClass: ItemClass { key != nil ? .key : internet == nil ? .genericPassword : .internetPassword }

    /// `kSecAttrAccount` in the type it was added with.
    public var accountValue: AttributeValue { AttributeValue(key: account, isData: accountIsData) }
    /// `kSecAttrService` in the type it was added with.
    public var serviceValue: AttributeValue { AttributeValue(key: service, isData: serviceIsData) }

    /// The item's attributes with empty data: what a read of attributes alone returns.
    public var withoutData: StoredItem {
        var attributes = self
        attributes.data = Data()
        return attributes
    }

    private enum CodingKeys: String, CodingKey {
        case group, account, service, generic, type, label, comment, creator, provenance, creationDate, modificationDate, data, version, accessibility,
            synchronizable, accountIsData, serviceIsData, internet, accessControl, key
        case itemDescription = "description"
    }

    /// Decodes an item; files written before items had versions read as version 1, before
    /// accessibility classes as `whenUnlocked`, before comments, descriptions and the
    /// synchronizable flag without them. Files of the layout before provenance hold the adding
    /// app's bundle ID as a string `creator`: it reads as ``provenance``, never as a number (a
    /// decimal string was a caller's `kSecAttrCreator` and reads as one).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        group = try container.decode(String.self, forKey: .group)
        account = try container.decode(String.self, forKey: .account)
        service = try container.decode(String.self, forKey: .service)
        generic = try container.decodeIfPresent(Data.self, forKey: .generic)
        type = try Self.decodeFourCharCode(container, .type)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        itemDescription = try container.decodeIfPresent(String.self, forKey: .itemDescription)
        provenance = try container.decodeIfPresent(Provenance.self, forKey: .provenance)
        if let legacy = try? container.decodeIfPresent(String.self, forKey: .creator) {
            let read = Provenance.legacy(creator: legacy)
            creator = read.creator
            provenance = provenance ?? read.provenance
        } else {
            creator = try Self.decodeFourCharCode(container, .creator)
        }
        creationDate = try container.decode(Date.self, forKey: .creationDate)
        modificationDate = try container.decode(Date.self, forKey: .modificationDate)
        data = try container.decode(Data.self, forKey: .data)
        // Foundation on Linux reports a negative or huge number as "not valid JSON": name the field.
        do {
            version = try container.decodeIfPresent(UInt64.self, forKey: .version) ?? 1
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "the version must be a whole number from 1 to \(Self.maxVersion)")
        }
        accessibility = try container.decodeIfPresent(Accessibility.self, forKey: .accessibility) ?? .whenUnlocked
        synchronizable = try container.decodeIfPresent(Bool.self, forKey: .synchronizable) ?? false
        accountIsData = try container.decodeIfPresent(Bool.self, forKey: .accountIsData) ?? false
        serviceIsData = try container.decodeIfPresent(Bool.self, forKey: .serviceIsData) ?? false
        internet = try container.decodeIfPresent(InternetAttributes.self, forKey: .internet)
        accessControl = try container.decodeIfPresent(AccessControlFlags.self, forKey: .accessControl)
        key = try container.decodeIfPresent(KeyAttributes.self, forKey: .key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(group, forKey: .group)
        try container.encode(account, forKey: .account)
        try container.encode(service, forKey: .service)
        try container.encodeIfPresent(generic, forKey: .generic)
        try container.encodeIfPresent(type, forKey: .type)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encodeIfPresent(comment, forKey: .comment)
        try container.encodeIfPresent(itemDescription, forKey: .itemDescription)
        try container.encodeIfPresent(creator, forKey: .creator)
        try container.encodeIfPresent(provenance, forKey: .provenance)
        try container.encode(creationDate, forKey: .creationDate)
        try container.encode(modificationDate, forKey: .modificationDate)
        try container.encode(data, forKey: .data)
        try container.encode(version, forKey: .version)
        try container.encode(accessibility, forKey: .accessibility)
        try container.encode(synchronizable, forKey: .synchronizable)
        // Absent when false or nil: files stay as they were for items that use none of them.
        if accountIsData { try container.encode(true, forKey: .accountIsData) }
        if serviceIsData { try container.encode(true, forKey: .serviceIsData) }
        try container.encodeIfPresent(internet, forKey: .internet)
        try container.encodeIfPresent(accessControl, forKey: .accessControl)
        try container.encodeIfPresent(key, forKey: .key)
    }

    /// A FourCharCode field: absent, or a whole number from 0 to 4294967295 (the error names
    /// the field; Foundation on Linux reports a negative or huge number as "not valid JSON").
    private static func decodeFourCharCode(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> UInt32? {
        do {
            return try container.decodeIfPresent(UInt32.self, forKey: key)
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "\(key.stringValue) must be a whole number from 0 to 4294967295")
        }
    }

    public var primaryKey: PrimaryKey {
        PrimaryKey(group: group, account: account, service: service, synchronizable: synchronizable, internet: internet, key: key)
    }

    /// The largest version an item may carry: every JSON reader holds it exactly (2^53 - 1),
    /// and a billion updates a second would take 285 years to reach it.
    public static let maxVersion: UInt64 = (1 << 53) - 1
}

/// What makes an item unique in Keychain Services: for a generic password account, service,
/// access group and the synchronizable flag; for an internet password account, the
/// ``InternetAttributes``, access group and the synchronizable flag; for a key the
/// ``KeyAttributes``, access group and the synchronizable flag. Generic, type, label,
/// creator and provenance are not part of it.
public struct PrimaryKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public var group: String
    public var account: String
    public var service: String
    /// `kSecAttrSynchronizable`: a synchronizable and a local item are two keys.
    public var synchronizable: Bool
    /// The internet password's key attributes; nil for a generic password.
    public var internet: InternetAttributes?
    /// The key's attributes; nil for a password.
    public var key: KeyAttributes?

    public init(
        group: String, account: String, service: String, synchronizable: Bool = false, internet: InternetAttributes? = nil,
        key: KeyAttributes? = nil
    ) {
        self.group = group
        self.account = account
        self.service = service
        self.synchronizable = synchronizable
        self.internet = internet
        self.key = key
    }

    private enum CodingKeys: String, CodingKey {
        case group, account, service, synchronizable, internet, key
    }

    /// Decodes a key; journals written before keys had the flag and the class read as local
    /// generic passwords.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        group = try container.decode(String.self, forKey: .group)
        account = try container.decode(String.self, forKey: .account)
        service = try container.decode(String.self, forKey: .service)
        synchronizable = try container.decodeIfPresent(Bool.self, forKey: .synchronizable) ?? false
        internet = try container.decodeIfPresent(InternetAttributes.self, forKey: .internet)
        key = try container.decodeIfPresent(KeyAttributes.self, forKey: .key)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(group, forKey: .group)
        try container.encode(account, forKey: .account)
        try container.encode(service, forKey: .service)
        if synchronizable { try container.encode(true, forKey: .synchronizable) }
        try container.encodeIfPresent(internet, forKey: .internet)
        try container.encodeIfPresent(key, forKey: .key)
    }

    public var description: String {
        let place = synchronizable ? " (synchronizable)" : ""
        if let key {
            return "\(key)\(place) in group '\(DisplayText(group))'"
        }
        if let internet {
            return "internet password for account '\(DisplayText(AttributeBytes.shown(account)))', \(internet)\(place) in group '\(DisplayText(group))'"
        }
        return "account '\(DisplayText(AttributeBytes.shown(account)))', service '\(DisplayText(AttributeBytes.shown(service)))'\(place) in group '\(DisplayText(group))'"
    }
}
