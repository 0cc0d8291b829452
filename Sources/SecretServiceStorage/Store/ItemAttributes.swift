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
    /// `kSecAttrType`, decimal.
    static let type = "type"
    /// `kSecAttrCreator`, decimal. Items of the layout before provenance hold the adding app's
    /// bundle ID here instead: a value that is no decimal number is read as ``addedBy``.
    static let creator = "creator"
    /// The emulator's provenance (``Provenance/addedBy``): the bundle ID of the app that added
    /// the item. The emulator's own metadata, named with its prefix so no tool takes it for an
    /// Apple attribute. Who last modified the item is kept in the record only: an attribute
    /// that changed with every writer would turn each update into a move.
    static let addedBy = "sharedkeychain:added-by"
    /// Apple's constant value (`ak`, `ck`, ...), present when not the default `whenUnlocked`.
    static let accessible = "accessible"
    /// `1` for a synchronizable item, `0` for a local one; absent on items written before the
    /// flag was an attribute (their records hold it).
    static let synchronizable = "synchronizable"
    /// `internet` for an internet password, `key` for a key; absent for a generic password
    /// (every item written before internet passwords existed).
    static let itemClass = "class"
    /// The internet-password attributes, each present (possibly empty) on an internet password.
    static let server = "server"
    static let securityDomain = "security-domain"
    static let `protocol` = "protocol"
    static let authenticationType = "authentication-type"
    /// Decimal.
    static let port = "port"
    static let path = "path"
    /// The key attributes, each present on a key: the tag and label as base64 of the bytes,
    /// the numbers decimal.
    static let keyClass = "key-class"
    static let applicationLabel = "application-label"
    static let applicationTag = "application-tag"
    static let keyType = "key-type"
    static let keySizeInBits = "key-size-in-bits"
    static let effectiveKeySize = "effective-key-size"

    /// The attributes of a key item (its class and every key attribute).
    private static func keyAttributes(_ key: KeyAttributes) -> [String: String] {
        [
            itemClass: ItemClass.key.rawValue, keyClass: key.keyClass, applicationLabel: key.applicationLabel.base64EncodedString(),
            applicationTag: key.applicationTag.base64EncodedString(), keyType: String(key.keyType),
            keySizeInBits: String(key.keySizeInBits), effectiveKeySize: String(key.effectiveKeySize),
        ]
    }

    /// The key attributes `fields` name (and the class, when `key`).
    private static func keyAttributes(_ fields: KeyFields, key: Bool) -> [String: String] {
        var attributes: [String: String] = [:]
        if key || !fields.isEmpty { attributes[itemClass] = ItemClass.key.rawValue }
        if let value = fields.keyClass { attributes[keyClass] = value }
        if let value = fields.applicationLabel { attributes[applicationLabel] = value.base64EncodedString() }
        if let value = fields.applicationTag { attributes[applicationTag] = value.base64EncodedString() }
        if let value = fields.keyType { attributes[keyType] = String(value) }
        if let value = fields.keySizeInBits { attributes[keySizeInBits] = String(value) }
        if let value = fields.effectiveKeySize { attributes[effectiveKeySize] = String(value) }
        return attributes
    }

    /// The internet-password attributes of `internet` (none for a generic password).
    private static func internetAttributes(_ internet: InternetAttributes) -> [String: String] {
        [
            itemClass: ItemClass.internetPassword.rawValue, server: internet.server, securityDomain: internet.securityDomain,
            Self.protocol: internet.protocol, authenticationType: internet.authenticationType, port: String(internet.port),
            path: internet.path,
        ]
    }

    /// The internet-password attributes `fields` name (and the class, when `internet`).
    private static func internetAttributes(_ fields: InternetFields, internet: Bool) -> [String: String] {
        var attributes: [String: String] = [:]
        if internet || !fields.isEmpty { attributes[itemClass] = ItemClass.internetPassword.rawValue }
        if let value = fields.server { attributes[server] = value }
        if let value = fields.securityDomain { attributes[securityDomain] = value }
        if let value = fields.protocol { attributes[Self.protocol] = value }
        if let value = fields.authenticationType { attributes[authenticationType] = value }
        if let value = fields.port { attributes[port] = String(value) }
        if let value = fields.path { attributes[path] = value }
        return attributes
    }

    /// Every attribute of `item`: what it is created with, and what a replace must repeat exactly.
    static func of(_ item: StoredItem) -> [String: String] {
        var attributes = [
            schemaKey: schemaName,
            group: item.group,
            account: item.account,
        ]
        if let key = item.key {
            attributes.merge(keyAttributes(key)) { _, new in new }
        } else if let internet = item.internet {
            attributes.merge(internetAttributes(internet)) { _, new in new }
        } else {
            attributes[service] = item.service
        }
        // Always present: gnome-keyring's CreateItem with replace takes any item whose attributes
        // include the new ones, so a local item without the attribute would replace its
        // synchronizable twin. With it, two keys never have one's attributes within the other's.
        attributes[synchronizable] = item.synchronizable ? "1" : "0"
        if let value = item.generic { attributes[generic] = value.base64EncodedString() }
        if let value = item.type { attributes[type] = String(value) }
        if let value = item.creator { attributes[creator] = String(value) }
        if let value = item.provenance?.addedBy { attributes[addedBy] = value }
        if item.accessibility != .whenUnlocked { attributes[accessible] = item.accessibility.secValue }
        return attributes
    }

    /// What to search for to find `query`'s items in `group`.
    static func matching(_ query: ItemQuery, in group: String) -> [String: String] {
        var attributes = [schemaKey: schemaName, Self.group: group]
        if let value = query.account { attributes[account] = value }
        // An internet password has no service attribute and the empty service: an empty one is
        // matched on the records, so both classes answer it as the in-memory store does.
        if let value = query.service, !value.isEmpty { attributes[service] = value }
        if let value = query.generic { attributes[generic] = value.base64EncodedString() }
        if let value = query.type { attributes[type] = String(value) }
        // Not the synchronizable flag: items written before it was an attribute lack it (their
        // records hold it), so it is matched on the records.
        attributes.merge(internetAttributes(query.filters.internet, internet: query.filters.itemClass == .internetPassword)) { _, new in new }
        attributes.merge(keyAttributes(query.filters.key, key: query.filters.itemClass == .key)) { _, new in new }
        return attributes
    }

    /// The searches that find `query`'s items in `group`: ``matching(_:in:)``, and when the
    /// query asks for the items one app added (``ItemQuery/Filters/addedBy``, a guarded delete,
    /// a load run's clean-up) that app's provenance searched for as well: once as the
    /// emulator's attribute, once as the string creator of the layout before it. Only the
    /// app's items are then read, not every secret of the group (minutes for 50,000 items); the
    /// records still decide, as for every filter. Not for a query of one key: it reads one item
    /// or two, and a search that misses a key the shard index names means a misplaced item. Nor
    /// for ``Provenance/external``: other clients' items carry no provenance attribute.
    static func searches(for query: ItemQuery, in group: String) -> [[String: String]] {
        let attributes = matching(query, in: group)
        guard let app = query.filters.addedBy, app != Provenance.external, query.account == nil || query.service == nil else {
            return [attributes]
        }
        return [attributes.merging([addedBy: app]) { _, new in new }, attributes.merging([creator: app]) { _, new in new }]
    }

    /// What to search for to find the item holding `key`: every item found that may hold it
    /// (its twin of the other synchronizable flag too: a missing attribute cannot be searched
    /// for, and items written before the flag was an attribute lack it), which the caller
    /// checks against the records.
    static func matching(_ key: PrimaryKey) -> [String: String] {
        var attributes = [schemaKey: schemaName, group: key.group, account: key.account]
        if let attributesOfKey = key.key {
            attributes.merge(keyAttributes(attributesOfKey)) { _, new in new }
        } else if let internet = key.internet {
            attributes.merge(internetAttributes(internet)) { _, new in new }
        } else {
            attributes[service] = key.service
        }
        return attributes
    }

    /// Who added the item, by the attributes: the emulator's attribute, or a bundle ID the
    /// layout before provenance kept as the creator.
    static func addedBy(in attributes: [String: String]) -> String? {
        if let value = attributes[addedBy] { return value }
        return attributes[creator].flatMap { Provenance.legacy(creator: $0).provenance?.addedBy }
    }

    /// The attributes an item of another client is rewritten with: its own, without the
    /// emulator's provenance (it reads ``Provenance/external``).
    static func ofExternal(_ item: StoredItem) -> [String: String] {
        var attributes = of(item)
        attributes[addedBy] = nil
        return attributes
    }

    /// An item another Secret Service client wrote with this store's attributes and a plain
    /// secret (`data`): its attributes from the Secret Service, `account` and `service` empty
    /// when absent (Apple's defaults), its dates the Secret Service's, a decimal `creator` as its
    /// `kSecAttrCreator`, and ``Provenance/external`` as who added it.
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
        var type: UInt32?
        if let text = values[Self.type] {
            guard let number = UInt32(text) else { throw .init(reason: "its type attribute '\(text)' is not a decimal number from 0 to 4294967295") }
            type = number
        }
        var accessibility = Accessibility.whenUnlocked
        if let text = values[accessible] {
            guard let known = Accessibility(secValue: text) else { throw .init(reason: "its accessible attribute '\(text)' is not one of Apple's values (ak, ck, dk, ...)") }
            accessibility = known
        }
        let created = Date(timeIntervalSince1970: Double(properties.created))
        let item = StoredItem(
            group: group, account: values[account] ?? "", service: values[service] ?? "", generic: generic, type: type,
            label: properties.label, creator: values[creator].flatMap { UInt32($0) }, provenance: Provenance(addedBy: Provenance.external),
            creationDate: created,
            modificationDate: Date(timeIntervalSince1970: Double(properties.modified)), data: data, accessibility: accessibility,
            synchronizable: values[synchronizable] == "1", internet: try externalInternet(values), key: try externalKey(values))
        // Ordered by when the Secret Service says it was created, in the insertion clock's unit.
        return ItemEnvelope(item: item, sequence: properties.created &* 1_000_000_000)
    }

    /// The internet-password attributes of an item another client wrote: nil unless its class
    /// is `internet`; each missing attribute is Apple's default.
    private static func externalInternet(_ values: [String: String]) throws(ItemEnvelope.DecodingError) -> InternetAttributes? {
        guard let name = values[itemClass], name != ItemClass.key.rawValue else { return nil }
        guard name == ItemClass.internetPassword.rawValue else {
            throw .init(reason: "its class attribute '\(name)' is not 'internet' or 'key' (generic passwords have none)")
        }
        var number = 0
        if let text = values[port] {
            guard let value = UInt16(text) else { throw .init(reason: "its port attribute '\(text)' is not a decimal number from 0 to 65535") }
            number = Int(value)
        }
        return InternetAttributes(
            securityDomain: values[securityDomain] ?? "", server: values[server] ?? "", protocol: values[Self.protocol] ?? "",
            authenticationType: values[authenticationType] ?? "", port: number, path: values[path] ?? "")
    }

    /// The key attributes of an item another client wrote: nil unless its class is `key`; each
    /// missing attribute is Apple's default.
    private static func externalKey(_ values: [String: String]) throws(ItemEnvelope.DecodingError) -> KeyAttributes? {
        guard values[itemClass] == ItemClass.key.rawValue else { return nil }
        func bytes(_ name: String) throws(ItemEnvelope.DecodingError) -> Data {
            guard let text = values[name] else { return Data() }
            guard let value = Data(base64Encoded: text) else { throw .init(reason: "its \(name) attribute is not base64") }
            return value
        }
        func number(_ name: String) throws(ItemEnvelope.DecodingError) -> Int {
            guard let text = values[name] else { return 0 }
            guard let value = Int32(text), value >= 0 else { throw .init(reason: "its \(name) attribute '\(text)' is not a decimal number") }
            return Int(value)
        }
        var type: UInt32 = 0
        if let text = values[keyType] {
            guard let value = UInt32(text) else { throw .init(reason: "its \(keyType) attribute '\(text)' is not a decimal number from 0 to 4294967295") }
            type = value
        }
        return KeyAttributes(
            keyClass: values[keyClass] ?? "", applicationLabel: try bytes(applicationLabel), applicationTag: try bytes(applicationTag),
            keyType: type, keySizeInBits: try number(keySizeInBits), effectiveKeySize: try number(effectiveKeySize))
    }

    /// The Secret Service label: the item's label, "account @ service", for an internet
    /// password "account @ server", for a key its description.
    static func label(of item: StoredItem) -> String {
        if item.label == nil, let key = item.key { return key.description }
        return item.label ?? "\(AttributeBytes.text(of: item.account)) @ \(item.internet?.server ?? AttributeBytes.text(of: item.service))"
    }
}
