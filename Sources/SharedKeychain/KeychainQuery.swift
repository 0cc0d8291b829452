import Foundation
import KeychainStorage

/// What `copyMatching`, `update` and `delete` look for. Every attribute left nil matches any
/// value; a nil group means every group the app is entitled to, as in Keychain Services.
public struct KeychainQuery: Sendable, Hashable, CustomStringConvertible {
    public var group: String?
    public var account: String?
    public var service: String?
    public var generic: Data?
    public var type: Int?
    /// Label, comment, description, creator, class and synchronizable (nil: any).
    public var filters: ItemQuery.Filters

    public init(
        group: String? = nil, account: String? = nil, service: String? = nil, generic: Data? = nil, type: Int? = nil,
        filters: ItemQuery.Filters = ItemQuery.Filters()
    ) {
        self.group = group
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.filters = filters
    }

    /// A query for everything in the app's groups (or in `group`).
    public static func all(in group: String? = nil) -> KeychainQuery { KeychainQuery(group: group) }

    public var description: String {
        var parts: [String] = []
        if let account { parts.append("account '\(account)'") }
        if let service { parts.append("service '\(service)'") }
        if let type { parts.append("type \(type)") }
        if generic != nil { parts.append("the given generic value") }
        if let label = filters.label { parts.append("label '\(label)'") }
        if let comment = filters.comment { parts.append("comment '\(comment)'") }
        if let description = filters.itemDescription { parts.append("description '\(description)'") }
        if let creator = filters.creator { parts.append("creator '\(creator)'") }
        if let accessibility = filters.accessibility { parts.append("class \(accessibility.rawValue)") }
        if let synchronizable = filters.synchronizable { parts.append(synchronizable ? "synchronizable" : "not synchronizable") }
        parts.append(group.map { "in group '\($0)'" } ?? "in any of the app's groups")
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

/// The attributes of an item to add (`SecItemAdd`'s dictionary, for the generic-password class).
public struct NewItem: Sendable, Hashable {
    public var account: String
    public var service: String
    /// The full access group; nil puts the item in the app's first group.
    public var group: String?
    public var generic: Data?
    public var type: Int?
    public var label: String?
    public var comment: String?
    public var itemDescription: String?
    /// Who created it; nil records the adding app's bundle ID.
    public var creator: String?
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
        type: Int? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: String? = nil,
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
