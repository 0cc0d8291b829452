/// The account record of the unified cache schema.
extension CachedAccount {
    /// The fields this module manages; others are kept as written.
    static let managedKeys: Set<String> = [
        "home_account_id", "environment", "realm", "local_account_id", "username", "authority_type", "name", "client_info",
    ]

    /// Reads a stored account value.
    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        let authority = try fields.string("authority_type")
        guard let authorityType = AuthorityType.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(authority) == .orderedSame }) else {
            throw FieldError("'authority_type' is '\(authority)'; expected MSSTS, AAD, MSA or ADFS")
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

    /// Whether this record is the one of the user's home tenant (`realm` is the `<tid>` of
    /// `<oid>.<tid>`), rather than a guest profile.
    var isHomeTenantRecord: Bool {
        homeAccountID.split(separator: ".", maxSplits: 1).dropFirst().first.map { CacheKey.normalized(String($0)) } == CacheKey.normalized(tenantID)
    }
}
