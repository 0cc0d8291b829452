import Foundation
import KeychainStorage

/// What `copyMatching`, `update` and `delete` look for. Every attribute left nil matches any
/// value; a nil group means every group the app is entitled to, as in Keychain Services.
///
/// Account and service are in their storage form (`AttributeBytes`): any string without NUL
/// that does not start with U+0001 `base64:` is itself; for `Data`, or any other string, use
/// ``init(group:account:service:filters:)`` with `AttributeValue`s. A `Data` value that is
/// valid UTF-8 matches the equal string, as Keychain Services keeps both as bytes.
public struct KeychainQuery: Sendable, Hashable, CustomStringConvertible {
    public var group: String?
    /// `kSecAttrAccount`, in its storage form.
    public var account: String?
    /// `kSecAttrService`, in its storage form.
    public var service: String?
    public var generic: Data?
    /// `kSecAttrType`, a FourCharCode.
    public var type: UInt32?
    /// Label, comment, description, creator, who added it (the emulator's provenance), class
    /// and synchronizable (nil: any).
    public var filters: ItemQuery.Filters

    public init(
        group: String? = nil, account: String? = nil, service: String? = nil, generic: Data? = nil, type: UInt32? = nil,
        filters: ItemQuery.Filters = ItemQuery.Filters()
    ) {
        self.group = group
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.filters = filters
    }

    /// A query for an account and service given as `String` or `Data` (either may be nil).
    public init(group: String? = nil, account: AttributeValue?, service: AttributeValue? = nil, filters: ItemQuery.Filters = ItemQuery.Filters()) {
        self.init(group: group, account: account?.key, service: service?.key, filters: filters)
    }

    /// A query for internet passwords (`kSecClassInternetPassword`) with the attributes named.
    public static func internet(
        group: String? = nil, account: AttributeValue? = nil, _ fields: InternetFields = InternetFields(),
        filters: ItemQuery.Filters = ItemQuery.Filters()
    ) -> KeychainQuery {
        var filters = filters
        filters.itemClass = .internetPassword
        filters.internet = fields
        return KeychainQuery(group: group, account: account?.key, filters: filters)
    }

    /// A query for keys (`kSecClassKey`) with the attributes named: MSAL's broker-key query
    /// names the tag, the key type and the group.
    public static func key(group: String? = nil, _ fields: KeyFields = KeyFields(), filters: ItemQuery.Filters = ItemQuery.Filters()) -> KeychainQuery {
        var filters = filters
        filters.itemClass = .key
        filters.key = fields
        return KeychainQuery(group: group, filters: filters)
    }

    /// A query for everything in the app's groups (or in `group`).
    public static func all(in group: String? = nil) -> KeychainQuery { KeychainQuery(group: group) }

    public var description: String {
        var parts: [String] = []
        if filters.itemClass == .internetPassword { parts.append("internet passwords") }
        if filters.itemClass == .genericPassword { parts.append("generic passwords") }
        if filters.itemClass == .key { parts.append("keys") }
        if let tag = filters.key.applicationTag { parts.append("tag '\(DisplayText(String(decoding: tag, as: UTF8.self)))'") }
        if let keyType = filters.key.keyType { parts.append("key type \(keyType)") }
        if let account { parts.append("account '\(DisplayText(AttributeBytes.shown(account)))'") }
        if let service { parts.append("service '\(DisplayText(AttributeBytes.shown(service)))'") }
        if let type { parts.append("type \(type)") }
        if generic != nil { parts.append("the given generic value") }
        if let label = filters.label { parts.append("label '\(DisplayText(label))'") }
        if let comment = filters.comment { parts.append("comment '\(DisplayText(comment))'") }
        if let description = filters.itemDescription { parts.append("description '\(DisplayText(description))'") }
        if let creator = filters.creator { parts.append("creator \(creator)") }
        if let addedBy = filters.addedBy { parts.append("added by '\(DisplayText(addedBy))' (the emulator's record)") }
        if let accessibility = filters.accessibility { parts.append("class \(accessibility.rawValue)") }
        if let synchronizable = filters.synchronizable { parts.append(synchronizable ? "synchronizable" : "not synchronizable") }
        let internet = filters.internet
        if let server = internet.server { parts.append("server '\(DisplayText(server))'") }
        if let value = internet.protocol { parts.append("protocol '\(DisplayText(value))'") }
        if let port = internet.port { parts.append("port \(port)") }
        if let path = internet.path { parts.append("path '\(DisplayText(path))'") }
        if let domain = internet.securityDomain { parts.append("security domain '\(DisplayText(domain))'") }
        if let type = internet.authenticationType { parts.append("authentication type '\(DisplayText(type))'") }
        parts.append(group.map { "in group '\(DisplayText($0))'" } ?? "in any of the app's groups")
        return parts.joined(separator: ", ")
    }
}

/// How many matches `copyMatching` returns (`kSecMatchLimitOne` / `kSecMatchLimitAll`).
public enum MatchLimit: Sendable, Hashable {
    /// `kSecMatchLimitOne`.
    case one
    /// `kSecMatchLimitAll`.
    case all
    /// A number as `kSecMatchLimit`: at most this many matches (at least 1).
    case count(Int)

    var count: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let number): max(number, 1)
        }
    }
}

/// The attributes of an item to add (`SecItemAdd`'s dictionary): a generic password, or an
/// internet password when ``internet`` is set. Account and service are in their storage form
/// (see ``KeychainQuery``); ``init(account:service:group:data:)`` takes `String` or `Data`.
public struct NewItem: Sendable, Hashable {
    /// `kSecAttrAccount`, in its storage form.
    public var account: String
    /// `kSecAttrService`, in its storage form; empty for an internet password.
    public var service: String
    /// Whether the account was given as `Data` (returned as `Data`).
    public var accountIsData = false
    /// Whether the service was given as `Data` (returned as `Data`).
    public var serviceIsData = false
    /// An internet password's attributes (`kSecClassInternetPassword`); nil: a generic password.
    public var internet: InternetAttributes?
    /// A key's attributes (`kSecClassKey`; account, service and ``internet`` are then ignored);
    /// nil: a password.
    public var key: KeyAttributes?
    /// The access control's flags (`kSecAttrAccessControl`); nil: none.
    public var accessControl: AccessControlFlags?
    /// The full access group; nil puts the item in the app's first group.
    public var group: String?
    public var generic: Data?
    /// `kSecAttrType`, a FourCharCode; nil: none.
    public var type: UInt32?
    public var label: String?
    public var comment: String?
    public var itemDescription: String?
    /// `kSecAttrCreator`, a FourCharCode the caller chooses; nil: none, as on a device. Who
    /// added the item is the emulator's own record (`StoredItem.provenance`), not this.
    public var creator: UInt32?
    public var data: Data
    /// `kSecAttrAccessible`; Apple's default is `whenUnlocked`.
    public var accessibility: Accessibility
    /// `kSecAttrSynchronizable`: kept and matched; nothing syncs on Linux.
    public var synchronizable: Bool

    public init(
        account: String,
        service: String,
        group: String? = nil,
        generic: Data? = nil,
        type: UInt32? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: UInt32? = nil,
        data: Data,
        accessibility: Accessibility = .whenUnlocked,
        synchronizable: Bool = false
    ) {
        self.account = account
        self.service = service
        self.group = group
        self.generic = generic
        self.type = type
        self.label = label
        self.comment = comment
        self.itemDescription = itemDescription
        self.creator = creator
        self.data = data
        self.accessibility = accessibility
        self.synchronizable = synchronizable
    }
}

extension NewItem {
    /// A generic password whose account and service are given as `String` or `Data`.
    public init(account: AttributeValue, service: AttributeValue, group: String? = nil, data: Data) {
        self.init(account: account.key, service: service.key, group: group, data: data)
        accountIsData = account.isData
        serviceIsData = service.isData
    }

    /// An internet password (`kSecClassInternetPassword`) for `account` with `attributes`.
    public init(internetAccount account: AttributeValue, _ attributes: InternetAttributes, group: String? = nil, data: Data) {
        self.init(account: account.key, service: "", group: group, data: data)
        accountIsData = account.isData
        internet = attributes
    }

    /// A key (`kSecClassKey`) with `attributes` and the key's bytes as `data`.
    public init(key attributes: KeyAttributes, group: String? = nil, data: Data, accessibility: Accessibility = .whenUnlocked) {
        self.init(account: "", service: "", group: group, data: data, accessibility: accessibility)
        key = attributes
    }
}
