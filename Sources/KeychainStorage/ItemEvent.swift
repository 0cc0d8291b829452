import Foundation

/// One change to an item of a watched access group, as an ``ItemWatch`` reports it: what
/// happened, to which item, made by which app, and when the store saw it.
///
/// An event names an item by its attributes only. It never carries the item's data, so a
/// stream of events can be printed, logged or journaled without leaking a secret.
public struct ItemEvent: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What happened to the item.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The item was added.
        case created
        /// The item was rewritten in place (its data, label or other attributes).
        case changed
        /// The item was deleted, alone or with its whole group.
        case deleted
    }

    /// What happened.
    public var kind: Kind
    /// The item's access group, in full (`ABCDE12345.com.microsoft.adalcache`).
    public var group: String
    /// `kSecAttrAccount` of the item.
    public var account: String
    /// `kSecAttrService` of the item.
    public var service: String
    /// The bundle ID of the app that created the item, when recorded; not necessarily the app
    /// that made this change (a store does not learn who changed or deleted an item).
    public var creator: String?
    /// When the store noticed the change (not a date stored in the item).
    public var time: Date

    /// An event with every field given.
    public init(kind: Kind, group: String, account: String, service: String, creator: String?, time: Date) {
        self.kind = kind
        self.group = group
        self.account = account
        self.service = service
        self.creator = creator
        self.time = time
    }

    /// An event about `item`, taking its attributes and leaving its data behind.
    public init(_ kind: Kind, _ item: StoredItem, at time: Date) {
        self.init(
            kind: kind, group: item.group, account: item.account, service: item.service, creator: item.creator,
            time: time)
    }

    /// The primary key of the item the event is about.
    public var primaryKey: PrimaryKey {
        PrimaryKey(group: group, account: account, service: service)
    }

    /// `created account 'alice', service 'rt' in group 'G' (creator com.contoso.mail)`; no data.
    public var description: String {
        "\(kind.rawValue) \(primaryKey) (creator \(creator ?? "unknown"))"
    }
}
