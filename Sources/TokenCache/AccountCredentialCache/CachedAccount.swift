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
    var homeTenantID: String? {
        homeAccountID.split(separator: ".", maxSplits: 1).dropFirst().first.map { CacheKey.normalized(String($0)) }
    }

    /// Whether this record is the one of the user's home tenant (`realm` is the `<tid>` of
    /// `<oid>.<tid>`), rather than a guest profile.
    var isHomeTenantRecord: Bool {
        homeTenantID == CacheKey.normalized(tenantID)
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
