import Foundation

/// One generic-password item as a storage backend keeps it: the attributes Keychain Services
/// defines for the class, and the secret data.
public struct StoredItem: Sendable, Hashable, Codable {
    /// The access group, in full (`ABCDE12345.com.microsoft.adalcache`).
    public var group: String
    /// `kSecAttrAccount`.
    public var account: String
    /// `kSecAttrService`.
    public var service: String
    /// `kSecAttrGeneric`: arbitrary bytes, searchable, not part of the primary key.
    public var generic: Data?
    /// `kSecAttrType`: MSAL stores its item kind here (2001 access token, ...).
    public var type: Int?
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrComment`.
    public var comment: String?
    /// `kSecAttrDescription`: a user-visible kind of item ("MSAL token").
    public var itemDescription: String?
    /// Who created the item; the keychain core records the adding app's bundle ID.
    public var creator: String?
    public var creationDate: Date
    public var modificationDate: Date
    /// The secret. Never logged, never printed by default.
    public var data: Data
    /// How many times the item was written: 1 when added, one more with every update. Not an
    /// Apple attribute: the project's compare-and-swap (``ItemChange/ifVersion``) rests on it.
    public var version: UInt64
    /// `kSecAttrAccessible`: when the item can be used, by the device's lock state.
    public var accessibility: Accessibility
    /// `kSecAttrSynchronizable`. Nothing syncs on Linux; the flag is kept and matched. Unlike
    /// Apple, it is not part of the primary key: a synchronizable and a local item cannot share
    /// account, service and group.
    public var synchronizable: Bool

    public init(
        group: String,
        account: String,
        service: String,
        generic: Data? = nil,
        type: Int? = nil,
        label: String? = nil,
        comment: String? = nil,
        itemDescription: String? = nil,
        creator: String? = nil,
        creationDate: Date,
        modificationDate: Date,
        data: Data,
        version: UInt64 = 1,
        accessibility: Accessibility = .whenUnlocked,
        synchronizable: Bool = false
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
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.data = data
        self.version = version
        self.accessibility = accessibility
        self.synchronizable = synchronizable
    }

    private enum CodingKeys: String, CodingKey {
        case group, account, service, generic, type, label, comment, creator, creationDate, modificationDate, data, version, accessibility,
            synchronizable
        case itemDescription = "description"
    }

    /// Decodes an item; files written before items had versions read as version 1, before
    /// accessibility classes as `whenUnlocked`, before comments, descriptions and the
    /// synchronizable flag without them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        group = try container.decode(String.self, forKey: .group)
        account = try container.decode(String.self, forKey: .account)
        service = try container.decode(String.self, forKey: .service)
        generic = try container.decodeIfPresent(Data.self, forKey: .generic)
        type = try container.decodeIfPresent(Int.self, forKey: .type)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        comment = try container.decodeIfPresent(String.self, forKey: .comment)
        itemDescription = try container.decodeIfPresent(String.self, forKey: .itemDescription)
        creator = try container.decodeIfPresent(String.self, forKey: .creator)
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
    }

    public var primaryKey: PrimaryKey {
        PrimaryKey(group: group, account: account, service: service)
    }

    /// The largest version an item may carry: every JSON reader holds it exactly (2^53 - 1),
    /// and a billion updates a second would take 285 years to reach it.
    public static let maxVersion: UInt64 = (1 << 53) - 1
}

/// What makes a generic-password item unique in Keychain Services: account, service and access
/// group. Generic, type, label and creator are not part of it.
public struct PrimaryKey: Hashable, Sendable, Codable, CustomStringConvertible {
    public var group: String
    public var account: String
    public var service: String

    public init(group: String, account: String, service: String) {
        self.group = group
        self.account = account
        self.service = service
    }

    public var description: String {
        "account '\(account)', service '\(service)' in group '\(group)'"
    }
}
