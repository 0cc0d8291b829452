import Foundation

/// Which items a storage operation acts on. Always scoped to explicit access groups: a backend
/// never sees an unscoped query, so "every item in the store" cannot be expressed by accident.
public struct ItemQuery: Sendable, Hashable {
    /// The groups to search, in the app's order. Never empty.
    public private(set) var groups: [String]
    public var account: String?
    public var service: String?
    public var generic: Data?
    public var type: Int?

    /// - Precondition: `groups` is not empty; the keychain core resolves "no group" to the
    ///   app's groups before it builds a query.
    public init(
        groups: [String],
        account: String? = nil,
        service: String? = nil,
        generic: Data? = nil,
        type: Int? = nil
    ) {
        precondition(!groups.isEmpty, "an ItemQuery must name at least one access group")
        self.groups = groups
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
    }

    /// True when the query names nothing but groups: it selects every item of those groups,
    /// which a backend may serve with a cheaper bulk operation.
    public var selectsWholeGroups: Bool {
        account == nil && service == nil && generic == nil && type == nil
    }

    /// Whether `item` satisfies every attribute the query names.
    public func matches(_ item: StoredItem) -> Bool {
        groups.contains(item.group)
            && (account == nil || account == item.account)
            && (service == nil || service == item.service)
            && (generic == nil || generic == item.generic)
            && (type == nil || type == item.type)
    }
}
