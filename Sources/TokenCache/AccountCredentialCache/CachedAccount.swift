import SharedKeychain

/// An account of the shared cache, as the SDK's account list returns it.
public struct CachedAccount: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `<oid>.<tid>`: the same for every app that signs the user in.
    public let homeAccountID: String
    /// The authority host that issued it (`login.microsoftonline.com`).
    public let environment: String
    /// The tenant of this account record (the cache's `realm`).
    public let tenantID: String
    /// The user's object ID in that tenant.
    public let localAccountID: String?
    /// The sign-in name (`preferred_username`), as the issuer spelled it.
    public let username: String
    /// The display name.
    public let name: String?
    /// What kind of authority issued the account (MSAL writes `MSSTS`).
    public let authorityType: AuthorityType
    /// The tenants the user has signed in to, this record's first, as MSALAccount's
    /// `tenantProfiles`: one for a single record; ``TokenCache/accounts()`` merges the
    /// records of one home account ID into one account with a profile per realm.
    public private(set) var tenantProfiles: [TenantProfile]

    /// - Parameters: the fields of the cache's account record.
    public init(
        homeAccountID: String, environment: String, tenantID: String, localAccountID: String?,
        username: String, name: String?, authorityType: AuthorityType
    ) {
        self.homeAccountID = homeAccountID
        self.environment = environment
        self.tenantID = tenantID
        self.localAccountID = localAccountID
        self.username = username
        self.name = name
        self.authorityType = authorityType
        self.tenantProfiles = [
            TenantProfile(
                tenantID: tenantID, localAccountID: localAccountID, environment: environment,
                isHomeTenant: Self.isHomeTenant(tenantID, of: homeAccountID))
        ]
    }

    /// `username (home account ID)`.
    public var description: String { "\(DisplayText(username)) (\(DisplayText(homeAccountID)))" }
}

/// The account record of the unified cache schema.
extension CachedAccount {
    /// Reads a stored account value.
    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        let authority = try fields.string("authority_type")
        guard let authorityType = AuthorityType.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(authority) == .orderedSame }) else {
            throw FieldError("'authority_type' is '\(DisplayText(authority))'; expected MSSTS, AAD, MSA or ADFS")
        }
        self.init(
            homeAccountID: try fields.string("home_account_id"),
            environment: try fields.string("environment"),
            tenantID: try fields.string("realm"),
            localAccountID: try fields.optionalString("local_account_id"),
            username: try fields.optionalString("username") ?? "",
            name: try fields.optionalString("name"),
            authorityType: authorityType)
    }

    /// The known fields, with `client_info` when the issuer sent one.
    func fields(clientInfo: String?) -> JSONObject {
        var object: JSONObject = [
            "home_account_id": .string(homeAccountID),
            "environment": .string(environment),
            "realm": .string(tenantID),
            "username": .string(username),
            "authority_type": .string(authorityType.rawValue),
        ]
        if let localAccountID { object["local_account_id"] = .string(localAccountID) }
        if let name { object["name"] = .string(name) }
        if let clientInfo { object["client_info"] = .string(clientInfo) }
        return object
    }

    var layout: ItemLayout {
        .account(homeAccountID: homeAccountID, environment: environment, realm: tenantID, username: username, authorityType: authorityType)
    }

    /// `home_account_id-environment-realm`, lowercased.
    var exportKey: String { CacheKey.normalized("\(homeAccountID)-\(environment)-\(tenantID)") }

    /// Whether `identifier` names this account: its home account ID or its username.
    func isNamed(_ identifier: String) -> Bool {
        let wanted = CacheKey.normalized(identifier)
        return CacheKey.normalized(homeAccountID) == wanted || CacheKey.normalized(username) == wanted
    }

    /// The home tenant the home account ID names (`<uid>.<utid>`), or nil.
    var homeTenantID: String? { Self.homeTenantID(of: homeAccountID) }

    /// The `<tid>` of the home account ID `<oid>.<tid>`, normalized, or nil.
    static func homeTenantID(of homeAccountID: String) -> String? {
        homeAccountID.split(separator: ".", maxSplits: 1).dropFirst().first.map { CacheKey.normalized(String($0)) }
    }

    /// Whether this record is the one of the user's home tenant (`realm` is the `<tid>` of
    /// `<oid>.<tid>`), rather than a guest profile.
    var isHomeTenantRecord: Bool { Self.isHomeTenant(tenantID, of: homeAccountID) }

    /// Whether `tenantID` is the `<tid>` of the home account ID `<oid>.<tid>`
    /// (`MSIDAccount isHomeTenantAccount`).
    static func isHomeTenant(_ tenantID: String, of homeAccountID: String) -> Bool {
        homeTenantID(of: homeAccountID) == CacheKey.normalized(tenantID)
    }

    /// This account with `other`'s tenant profiles added, those of a tenant it already has left
    /// out (`MSALAccount addTenantProfiles`, keyed by tenant ID, the first kept); the home
    /// tenant's profile first.
    func addingTenantProfiles(of other: CachedAccount) -> CachedAccount {
        var merged = self
        for profile in other.tenantProfiles
        where !merged.tenantProfiles.contains(where: { CacheKey.normalized($0.tenantID) == CacheKey.normalized(profile.tenantID) }) {
            merged.tenantProfiles.append(profile)
        }
        if let home = merged.tenantProfiles.firstIndex(where: \.isHomeTenant), home > 0 {
            merged.tenantProfiles.insert(merged.tenantProfiles.remove(at: home), at: 0)
        }
        return merged
    }
}

extension CachedAccount {
    /// Decodes what ``CachedAccount`` encodes; without `tenantProfiles`, this record's own.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            homeAccountID: try container.decode(String.self, forKey: .homeAccountID),
            environment: try container.decode(String.self, forKey: .environment),
            tenantID: try container.decode(String.self, forKey: .tenantID),
            localAccountID: try container.decodeIfPresent(String.self, forKey: .localAccountID),
            username: try container.decode(String.self, forKey: .username),
            name: try container.decodeIfPresent(String.self, forKey: .name),
            authorityType: try container.decode(AuthorityType.self, forKey: .authorityType))
        if let profiles = try container.decodeIfPresent([TenantProfile].self, forKey: .tenantProfiles), !profiles.isEmpty {
            tenantProfiles = profiles
        }
    }
}

/// One tenant an account has signed in to, as MSAL's `MSALTenantProfile` gives it: the
/// account record of that realm.
public struct TenantProfile: Sendable, Hashable, Codable {
    /// The tenant (the record's `realm`).
    public let tenantID: String
    /// The user's object ID in that tenant (`MSALTenantProfile identifier`).
    public let localAccountID: String?
    /// The authority host of the record.
    public let environment: String
    /// Whether it is the user's home tenant rather than a guest profile.
    public let isHomeTenant: Bool

    /// - Parameters: see the properties.
    public init(tenantID: String, localAccountID: String?, environment: String, isHomeTenant: Bool) {
        self.tenantID = tenantID
        self.localAccountID = localAccountID
        self.environment = environment
        self.isHomeTenant = isHomeTenant
    }
}

/// Who issued an account, as the cache's `authority_type` field spells it.
public enum AuthorityType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Azure AD v2 and Microsoft accounts through the v2 endpoint: what MSAL writes.
    case msSTS = "MSSTS"
    /// Azure AD v1 (ADAL).
    case aad = "AAD"
    /// A Microsoft account through the v1 endpoint.
    case msa = "MSA"
    case adfs = "ADFS"

    /// `kSecAttrType` of the account item: 1000 + {AAD 1, MSA 2, MSSTS 3, ADFS 4}.
    var itemType: UInt32 {
        switch self {
        case .aad: 1001
        case .msa: 1002
        case .msSTS: 1003
        case .adfs: 1004
        }
    }

    init?(itemType: UInt32) {
        guard let match = Self.allCases.first(where: { $0.itemType == itemType }) else { return nil }
        self = match
    }
}
