import Foundation

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
