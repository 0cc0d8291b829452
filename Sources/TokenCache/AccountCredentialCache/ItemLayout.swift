import Foundation

/// Where one cache item lives in the group: the keychain attributes the SDKs give it.
///
/// | item | account | service | generic | type |
/// |---|---|---|---|---|
/// | access token | `<home_account_id>-<environment>` | `accesstoken-<clientid>-<realm>-<target>` | `accesstoken-<clientid>-<realm>` | 2001 |
/// | refresh token | same | `refreshtoken-<clientid>--` | `refreshtoken-<clientid>-` | 2002 |
/// | family refresh token | same | `refreshtoken-<familyid>--` | `refreshtoken-<familyid>-` | 2002 |
/// | ID token | same | `idtoken-<clientid>-<realm>-` | `idtoken-<clientid>-<realm>` | 2003 |
/// | account | same | `<realm>` | `<username>` | 1001–1004 |
/// | app metadata | `<environment>` | `appmetadata-<clientid>` | `<family_id>` | 3001 |
/// | account metadata (one per client) | `authority_map` | `<clientid>` as given | none | 5001 |
///
/// Every string is trimmed and lowercased but the account-metadata service; the wipe record has
/// a layout of its own (``WipeRecord``).
struct ItemLayout: Sendable, Hashable {
    var account: String
    var service: String
    var generic: Data?
    var type: UInt32?

    /// The `(account, service)` pair that, with the group, is the item's primary key.
    var address: ItemAddress { ItemAddress(account: account, service: service) }

    static func credential(
        _ type: CredentialType, homeAccountID: String, environment: String,
        clientOrFamilyID: String, realm: String?, target: String?
    ) -> ItemLayout {
        let client = clientOrFamilyID
        let realm = realm ?? ""
        let service: String
        let generic: String
        switch type {
        case .accessToken:
            service = "accesstoken-\(client)-\(realm)-\(target ?? "")"
            generic = "accesstoken-\(client)-\(realm)"
        case .refreshToken:
            // Refresh tokens are not bound to a realm or target: both parts stay empty.
            service = "refreshtoken-\(client)--"
            generic = "refreshtoken-\(client)-"
        case .familyRefreshToken:
            service = "familyrefreshtoken-\(client)--"
            generic = "familyrefreshtoken-\(client)-"
        case .idToken:
            service = "idtoken-\(client)-\(realm)-"
            generic = "idtoken-\(client)-\(realm)"
        }
        return ItemLayout(
            account: CacheKey.account(homeAccountID: homeAccountID, environment: environment),
            service: CacheKey.normalized(service),
            generic: Data(CacheKey.normalized(generic).utf8),
            type: type.itemType)
    }

    static func account(homeAccountID: String, environment: String, realm: String, username: String, authorityType: AuthorityType) -> ItemLayout {
        ItemLayout(
            account: CacheKey.account(homeAccountID: homeAccountID, environment: environment),
            service: CacheKey.normalized(realm),
            generic: Data(CacheKey.normalized(username).utf8),
            type: authorityType.itemType)
    }

    /// `MSIDAppMetadataCacheKey.m`: the generic is the family ID's bytes, empty for `""` (the
    /// server said "no family") and absent for nil.
    static func appMetadata(environment: String, clientID: String, familyID: String?) -> ItemLayout {
        ItemLayout(
            account: CacheKey.normalized(environment),
            service: CacheKey.normalized("appmetadata-\(clientID)"),
            generic: familyID.map { Data(CacheKey.normalized($0).utf8) },
            type: ItemType.appMetadata)
    }
}

/// The `kSecAttrType` numbers of cache items.
enum ItemType {
    /// Credentials are 2000 + the credential type (see ``CredentialType``).
    static let credentials: Set<UInt32> = [2001, 2002, 2003, 2008]
    /// Accounts are 1000 + the authority type (see ``AuthorityType``).
    static let accounts: ClosedRange<UInt32> = 1001...1004
    static let appMetadata: UInt32 = 3001
    /// Account metadata: one item per client (``AccountMetadataItem``).
    static let accountMetadata: UInt32 = 5001
    /// The per-account sign-in records of earlier versions of this emulator, read and converted
    /// (``LegacySignInRecord``).
    static let legacySignInState: UInt32 = 4001
}

/// The account and service of an item: its primary key within the group.
struct ItemAddress: Sendable, Hashable {
    var account: String
    var service: String
}

/// Key strings as the SDKs write them: trimmed, then lowercased.
enum CacheKey {
    static func normalized(_ raw: String) -> String {
        raw.trimmingWhitespace.lowercased()
    }

    /// The keychain account of every item of one user: `<home_account_id>-<environment>`.
    static func account(homeAccountID: String, environment: String) -> String {
        normalized("\(homeAccountID)-\(environment)")
    }
}

extension String {
    /// The string without leading and trailing white space (newlines included), worked out on
    /// its own characters. Foundation's `trimmingCharacters(in:)` goes through NSString and
    /// UTF-16 on Linux: on every key and field of every item read, that was half of a cache
    /// read's time.
    var trimmingWhitespace: String {
        guard first?.isWhitespace == true || last?.isWhitespace == true else { return self }
        guard let start = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return String(self[start...last])
    }
}

/// The top-level sections of the serialized cache (MSAL Python, Java and .NET use the same).
enum CacheSection: String, Sendable, CaseIterable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    case account = "Account"
    case appMetadata = "AppMetadata"
}
