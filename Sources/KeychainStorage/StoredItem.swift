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
    /// Who created the item; the keychain core records the adding app's bundle ID.
    public var creator: String?
    public var creationDate: Date
    public var modificationDate: Date
    /// The secret. Never logged, never printed by default.
    public var data: Data

    public init(
        group: String,
        account: String,
        service: String,
        generic: Data? = nil,
        type: Int? = nil,
        label: String? = nil,
        creator: String? = nil,
        creationDate: Date,
        modificationDate: Date,
        data: Data
    ) {
        self.group = group
        self.account = account
        self.service = service
        self.generic = generic
        self.type = type
        self.label = label
        self.creator = creator
        self.creationDate = creationDate
        self.modificationDate = modificationDate
        self.data = data
    }

    public var primaryKey: PrimaryKey {
        PrimaryKey(group: group, account: account, service: service)
    }
}
