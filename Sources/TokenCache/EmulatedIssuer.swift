import Foundation

/// A stand-in for the Microsoft identity platform's token endpoint, with no network: it mints
/// clearly fake tokens and unsigned ID tokens, and decides which refresh tokens it accepts.
///
/// Identifiers are deterministic: the same username in the same tenant always gets the same
/// object ID, so two apps signing one user in produce one account.
public struct EmulatedIssuer: Sendable, Hashable {
    /// The tenant `common` and `organizations` resolve to (an emulator constant).
    public static let organizationsTenantID = StableUUID.from("tenant:organizations")
    /// The Microsoft-account tenant, as the real service names it.
    public static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"

    /// How long minted access tokens are valid, in seconds.
    public var accessTokenLifetime: TimeInterval

    /// - Parameter accessTokenLifetime: seconds; the service's usual hour by default.
    public init(accessTokenLifetime: TimeInterval = 3600) {
        self.accessTokenLifetime = accessTokenLifetime
    }

    /// The tenant ID for `tenant`: a GUID as is, `common`/`organizations` and `consumers` as
    /// the constants above, any other name (`contoso.onmicrosoft.com`) a UUID derived from it.
    public static func tenantID(for tenant: String) -> String {
        let name = CacheKey.normalized(tenant)
        switch name {
        case "", "common", "organizations": return organizationsTenantID
        case "consumers": return consumersTenantID
        default: return StableUUID.isUUID(name) ? name : StableUUID.from("tenant:\(name)")
        }
    }

    /// The user's object ID in `tenantID`: derived from the lowercased username and the tenant.
    public static func objectID(username: String, tenantID: String) -> String {
        StableUUID.from("oid:\(CacheKey.normalized(username))@\(tenantID)")
    }

    /// The user an interactive sign-in authenticates.
    func user(username: String, tenant: String) -> IssuedUser {
        let tenantID = Self.tenantID(for: tenant)
        let objectID = Self.objectID(username: username, tenantID: tenantID)
        return IssuedUser(
            homeAccountID: "\(objectID).\(tenantID)", objectID: objectID, tenantID: tenantID,
            username: username.trimmingWhitespace, name: IssuedUser.displayName(for: username))
    }

    /// The user a refresh token of `account` stands for (a real server knows it from the token).
    func user(for account: CachedAccount) -> IssuedUser {
        let objectID = account.localAccountID
            ?? account.homeAccountID.split(separator: ".", maxSplits: 1).first.map(String.init)
            ?? account.homeAccountID
        return IssuedUser(
            homeAccountID: account.homeAccountID, objectID: objectID, tenantID: account.tenantID,
            username: account.username, name: account.name ?? IssuedUser.displayName(for: account.username))
    }

    /// Why the server refuses `token` from `clientID`, or nil when it accepts it. A family
    /// token is accepted only from a client the server puts in that family.
    func refusal(of token: Credential, asFamilyToken: Bool, clientID: String, familyID: String?) -> String? {
        if asFamilyToken {
            guard let family = token.family, let familyID, CacheKey.normalized(familyID) == CacheKey.normalized(family) else {
                return "invalid_grant: client \(clientID) is not a member of family \(token.family ?? "(none)")"
            }
            return nil
        }
        guard CacheKey.normalized(token.clientID) == CacheKey.normalized(clientID) else {
            return "invalid_grant: the refresh token was issued to client \(token.clientID)"
        }
        return nil
    }

    /// A token response for `user`: fresh random secrets, an ID token, the family when the
    /// client is in one.
    func issue(to user: IssuedUser, clientID: String, familyID: String?, environment: String, scopes: [String], at now: Date) -> TokenResponse {
        let expiresOn = now.addingTimeInterval(accessTokenLifetime)
        return TokenResponse(
            user: user, clientID: clientID, environment: environment, familyID: familyID, scopes: scopes,
            accessToken: "emulated-access-token." + Base64URL.random(bytes: 32),
            refreshToken: "emulated-refresh-token." + Base64URL.random(bytes: 48),
            idToken: idToken(for: user, clientID: clientID, environment: environment, issuedAt: now, expiresOn: expiresOn),
            issuedAt: now, expiresOn: expiresOn, extendedExpiresOn: expiresOn.addingTimeInterval(accessTokenLifetime))
    }

    /// An unsecured JWT (RFC 7519 §6: `alg` none, empty signature) that says it is emulated.
    func idToken(for user: IssuedUser, clientID: String, environment: String, issuedAt: Date, expiresOn: Date) -> String {
        let header: JSONObject = ["alg": .string("none"), "typ": .string("JWT")]
        let seconds = { (date: Date) in JSONValue.integer(Int64(date.timeIntervalSince1970.rounded(.down))) }
        let payload: JSONObject = [
            "emulated": .bool(true),
            "aud": .string(clientID),
            "iss": .string("https://\(environment)/\(user.tenantID)/v2.0"),
            "iat": seconds(issuedAt),
            "nbf": seconds(issuedAt),
            "exp": seconds(expiresOn),
            "oid": .string(user.objectID),
            "tid": .string(user.tenantID),
            "sub": .string(StableUUID.from("sub:\(user.objectID):\(CacheKey.normalized(clientID))")),
            "preferred_username": .string(user.username),
            "name": .string(user.name),
            "ver": .string("2.0"),
        ]
        return Base64URL.encode(CacheJSON.data(header)) + "." + Base64URL.encode(CacheJSON.data(payload)) + "."
    }
}
