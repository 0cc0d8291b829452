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
    public var description: String { "\(username) (\(homeAccountID))" }
}
