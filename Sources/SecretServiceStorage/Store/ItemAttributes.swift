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

    /// What an item another client wrote shows as its creator.
    static let externalCreator = "external"

    /// The attributes an item of another client is rewritten with: its own, without a creator.
    static func ofExternal(_ item: StoredItem) -> [String: String] {
        var attributes = of(item)
        attributes[creator] = nil
        return attributes
    }

    /// An item another Secret Service client wrote with this store's attributes and a plain
    /// secret (`data`): its attributes from the Secret Service, `account` and `service` empty
    /// when absent (Apple's defaults), its dates the Secret Service's, and `external` as creator.
    static func externalItem(_ properties: SecretServiceClient.ItemProperties, data: Data) throws(ItemEnvelope.DecodingError)
        -> ItemEnvelope
    {
        let values = properties.attributes
        guard let group = values[Self.group] else { throw .init(reason: "it has no access-group attribute") }
        var generic: Data?
        if let text = values[Self.generic] {
            guard let bytes = Data(base64Encoded: text) else {
                throw .init(reason: "its generic attribute is not base64 (the storage contract: generic holds base64)")
            }
            generic = bytes
        }
        var type: Int?
        if let text = values[Self.type] {
            guard let number = UInt32(text) else { throw .init(reason: "its type attribute '\(text)' is not a decimal number from 0 to 4294967295") }
            type = Int(number)
        }
        var accessibility = Accessibility.whenUnlocked
        if let text = values[accessible] {
            guard let known = Accessibility(secValue: text) else { throw .init(reason: "its accessible attribute '\(text)' is not one of Apple's values (ak, ck, dk, ...)") }
            accessibility = known
        }
        let created = Date(timeIntervalSince1970: Double(properties.created))
        let item = StoredItem(
            group: group, account: values[account] ?? "", service: values[service] ?? "", generic: generic, type: type,
            label: properties.label, creator: externalCreator, creationDate: created,
            modificationDate: Date(timeIntervalSince1970: Double(properties.modified)), data: data, accessibility: accessibility)
        // Ordered by when the Secret Service says it was created, in the insertion clock's unit.
        return ItemEnvelope(item: item, sequence: properties.created &* 1_000_000_000)
    }

    /// The Secret Service label: the item's label, or "account @ service".
    static func label(of item: StoredItem) -> String {
        item.label ?? "\(item.account) @ \(item.service)"
    }
}
