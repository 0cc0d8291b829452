import Foundation
import KeychainStorage

/// The searchable Secret Service attributes of an item. Every value is a string; optional
/// attributes are absent (not empty) when the item has no value.
enum ItemAttributes {
    static let schemaKey = "xdg:schema"
    /// libsecret's schema name for our items (`xdg:schema`), so other tools can tell them apart.
    static let schemaName = "org.sharedkeychain.GenericPassword"
    static let group = "access-group"
    static let account = "account"
    static let service = "service"
    /// Base64 of the bytes.
    static let generic = "generic"
    /// Decimal.
    static let type = "type"
    static let creator = "creator"
    /// Apple's constant value (`ak`, `ck`, ...), present when not the default `whenUnlocked`.
    static let accessible = "accessible"

    /// Every attribute of `item`: what it is created with, and what a replace must repeat exactly.
    static func of(_ item: StoredItem) -> [String: String] {
        var attributes = [
            schemaKey: schemaName,
            group: item.group,
            account: item.account,
            service: item.service,
        ]
        if let value = item.generic { attributes[generic] = value.base64EncodedString() }
        if let value = item.type { attributes[type] = String(value) }
        if let value = item.creator { attributes[creator] = value }
        if item.accessibility != .whenUnlocked { attributes[accessible] = item.accessibility.secValue }
        return attributes
    }

    /// What to search for to find `query`'s items in `group`.
    static func matching(_ query: ItemQuery, in group: String) -> [String: String] {
        var attributes = [schemaKey: schemaName, Self.group: group]
        if let value = query.account { attributes[account] = value }
        if let value = query.service { attributes[service] = value }
        if let value = query.generic { attributes[generic] = value.base64EncodedString() }
        if let value = query.type { attributes[type] = String(value) }
        return attributes
    }

    /// What to search for to find the item holding `key`.
    static func matching(_ key: PrimaryKey) -> [String: String] {
        [schemaKey: schemaName, group: key.group, account: key.account, service: key.service]
    }

    /// The Secret Service label: the item's label, or "account @ service".
    static func label(of item: StoredItem) -> String {
        item.label ?? "\(item.account) @ \(item.service)"
    }
}
