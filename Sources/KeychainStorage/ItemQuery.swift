import Foundation

/// Which items a storage operation acts on. Always scoped to explicit access groups: a backend
/// never sees an unscoped query, so "every item in the store" cannot be expressed by accident.
///
/// Every attribute left nil matches any value. Account, service, generic and type are
/// *searchable*: a backend may hand them to its own search (the Secret Service searches them as
/// item attributes). The others are ``filters``, which a backend applies to what its search found.
public struct ItemQuery: Sendable, Hashable {
    /// The groups to search, in the app's order. Never empty.
    public private(set) var groups: [String]
    public var account: String?
    public var service: String?
    public var generic: Data?
    /// `kSecAttrType`, a FourCharCode.
    public var type: UInt32?
    /// Matched after the search: label, comment, description, creator, the emulator's
    /// provenance, accessibility class,
    /// synchronizable, item class, the internet-password and the key attributes.
    public var filters: Filters

    /// The attributes a backend matches on the items its search found.
    public struct Filters: Sendable, Hashable {
        public var label: String?
        public var comment: String?
        public var itemDescription: String?
        /// `kSecAttrCreator`, a FourCharCode: matches only items a caller gave this creator.
        public var creator: UInt32?
        /// The emulator's record of who added the item (``Provenance/addedBy``): not an Apple
        /// attribute, so SecItem never sets it.
        public var addedBy: String?
        public var accessibility: Accessibility?
        /// nil: both (`kSecAttrSynchronizableAny`).
        public var synchronizable: Bool?
        /// nil: every class. SecItem always names one (`kSecClass`); the Swift API's queries
        /// reach both unless they say.
        public var itemClass: ItemClass?
        /// Internet-password attributes to match; any named excludes generic passwords.
        public var internet: InternetFields
        /// Key attributes to match; any named excludes passwords.
        public var key: KeyFields
        /// Whether the item's access control asks the user (``AccessControlFlags/asksUser``);
        /// nil: either. `kSecUseAuthenticationUISkip` searches with false.
        public var asksUser: Bool?

        public init(
            label: String? = nil, comment: String? = nil, itemDescription: String? = nil, creator: UInt32? = nil,
            addedBy: String? = nil, accessibility: Accessibility? = nil, synchronizable: Bool? = nil, itemClass: ItemClass? = nil,
            internet: InternetFields = InternetFields(), asksUser: Bool? = nil, key: KeyFields = KeyFields()
        ) {
            self.label = label
            self.comment = comment
            self.itemDescription = itemDescription
            self.creator = creator
            self.addedBy = addedBy
            self.accessibility = accessibility
            self.synchronizable = synchronizable
            self.itemClass = itemClass
            self.internet = internet
            self.asksUser = asksUser
            self.key = key
        }

        /// True when no filter is set.
        public var isEmpty: Bool { self == Filters() }

        public func matches(_ item: StoredItem) -> Bool {
            (label == nil || label == item.label)
                && (comment == nil || comment == item.comment)
                && (itemDescription == nil || itemDescription == item.itemDescription)
                && (creator == nil || creator == item.creator)
                && (addedBy == nil || addedBy == item.provenance?.addedBy)
                && (accessibility == nil || accessibility == item.accessibility)
                && (synchronizable == nil || synchronizable == item.synchronizable)
                && (itemClass == nil || itemClass == item.itemClass)
                && internet.matches(item.internet)
                && key.matches(item.key)
                && (asksUser == nil || asksUser == (item.accessControl?.asksUser ?? false))
        }
    }

    /// - Precondition: `groups` is not empty; the keychain core resolves "no group" to the
    ///   app's groups before it builds a query.
    public init(
        groups: [String],
        account: String? = nil,
        service: String? = nil,
        generic: Data? = nil,
        type: UInt32? = nil,
        filters: Filters = Filters()
    ) {
        precondition(!groups.isEmpty, "an ItemQuery must name at least one access group")
        self.groups = groups
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.filters = filters
    }

    /// True when the query names nothing but groups: it selects every item of those groups,
    /// which a backend may serve with a cheaper bulk operation.
    public var selectsWholeGroups: Bool {
        account == nil && service == nil && generic == nil && type == nil && filters.isEmpty
    }

    /// The same query without its ``filters``: what a backend's own search can answer.
    public var searchable: ItemQuery {
        var query = self
        query.filters = Filters()
        return query
    }

    /// The same query restricted to `groups` (not empty).
    public func restricted(to groups: [String]) -> ItemQuery {
        var query = self
        precondition(!groups.isEmpty, "an ItemQuery must name at least one access group")
        query.groups = groups
        return query
    }

    /// Whether `item` satisfies every attribute the query names.
    public func matches(_ item: StoredItem) -> Bool {
        matchesSearchable(item) && filters.matches(item)
    }

    /// Whether `item` satisfies the searchable attributes (groups, account, service, generic, type).
    public func matchesSearchable(_ item: StoredItem) -> Bool {
        groups.contains(item.group)
            && (account == nil || account == item.account)
            && (service == nil || service == item.service)
            && (generic == nil || generic == item.generic)
            && (type == nil || type == item.type)
    }

    /// The one primary key in `group` the query names, when it names a whole one: account and
    /// a non-empty service (internet passwords have none) of a generic password, or account and
    /// every internet attribute of an internet password, and the synchronizable flag. A backend
    /// may look that key up alone.
    public func exactKey(in group: String) -> PrimaryKey? {
        // A key's whole key is six attributes; its queries are few and searched.
        guard let account, let synchronizable = filters.synchronizable, filters.itemClass != .key, filters.key.isEmpty else { return nil }
        let internet = filters.internet
        if filters.itemClass != .internetPassword, internet.isEmpty, let service, !service.isEmpty {
            return PrimaryKey(group: group, account: account, service: service, synchronizable: synchronizable)
        }
        guard filters.itemClass != .genericPassword, service == nil || service == "",
            let securityDomain = internet.securityDomain, let server = internet.server, let value = internet.protocol,
            let authenticationType = internet.authenticationType, let port = internet.port, let path = internet.path
        else { return nil }
        let attributes = InternetAttributes(
            securityDomain: securityDomain, server: server, protocol: value, authenticationType: authenticationType, port: port, path: path)
        return PrimaryKey(group: group, account: account, service: "", synchronizable: synchronizable, internet: attributes)
    }
}
