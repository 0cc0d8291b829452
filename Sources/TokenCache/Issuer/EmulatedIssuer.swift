import Foundation
import SharedKeychain

/// A stand-in for the Microsoft identity platform's token endpoint, with no network: it mints
/// clearly fake tokens and unsigned ID tokens, and decides which refresh tokens it accepts.
///
/// Its identity model is stateless, the same in every process: a user's home tenant comes from
/// the domain of the username (``homeTenantID(forUsername:)``), and the user has one home
/// account ID, `<oid>.<home tid>`, in every tenant. Signing in to another tenant makes a guest
/// profile under that same home account ID: the realm and the ID token's `tid` are that
/// tenant's, the local account ID and `oid` the user's object ID there (IdentityCore
/// `MSIDAccount` `accountIdentifier`, `localAccountId`, `realm`). Object IDs are derived from the
/// username and the tenant, so two apps signing one user in produce one account.
public struct EmulatedIssuer: Sendable, Hashable {
    /// The home tenant of a username without a domain (an emulator constant).
    public static let organizationsTenantID = StableUUID.from("tenant:organizations")
    /// The Microsoft-account tenant, as the real service names it.
    public static let consumersTenantID = "9188040d-6c67-4c5b-b112-36a304b66dad"
    /// The domains of Microsoft (personal) accounts, whose home tenant is ``consumersTenantID``.
    public static let consumerDomains: Set<String> = ["outlook.com", "hotmail.com", "live.com"]

    /// How long minted access tokens are valid, in seconds.
    public var accessTokenLifetime: TimeInterval
    /// The `refresh_in` the token endpoint sends, in seconds, or nil to send none. MSAL writes
    /// `refresh_on` (issue time + `refresh_in`) on the access token and refreshes it proactively
    /// once that has passed (IdentityCore `MSIDAADTokenResponse.m` `refreshOnDate`).
    public var refreshIn: TimeInterval?
    /// Client IDs the server says are in no family, whatever the app's configuration says: it
    /// answers their family refresh tokens with `invalid_grant`/`client_mismatch` and sends them
    /// no `foci`. Compared case-insensitively.
    public var clientsOutsideFamily: Set<String>

    /// - Parameters:
    ///   - accessTokenLifetime: seconds; the service's usual hour by default.
    ///   - refreshIn: seconds until MSAL refreshes proactively; nil (the default) sends none.
    ///   - clientsOutsideFamily: clients the server keeps out of every family.
    public init(accessTokenLifetime: TimeInterval = 3600, refreshIn: TimeInterval? = nil, clientsOutsideFamily: Set<String> = []) {
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshIn = refreshIn
        self.clientsOutsideFamily = Set(clientsOutsideFamily.map(CacheKey.normalized))
    }

    /// The family the server puts `clientID` in: `configured` (the app's setting), unless the
    /// client is one of ``clientsOutsideFamily``.
    public func familyID(ofClient clientID: String, configured: String?) -> String? {
        clientsOutsideFamily.contains(CacheKey.normalized(clientID)) ? nil : configured
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

    /// The user's home tenant: the tenant of the username's domain (`alice@contoso.com` ->
    /// ``tenantID(for:)`` of `contoso.com`), ``consumersTenantID`` for the Microsoft-account
    /// domains, ``organizationsTenantID`` for a username without a domain.
    public static func homeTenantID(forUsername username: String) -> String {
        let name = CacheKey.normalized(username)
        guard let at = name.lastIndex(of: "@") else { return organizationsTenantID }
        let domain = String(name[name.index(after: at)...])
        if domain.isEmpty { return organizationsTenantID }
        return consumerDomains.contains(domain) ? consumersTenantID : tenantID(for: domain)
    }

    /// The tenant a sign-in to `tenant` authenticates in, for a user whose home tenant is
    /// `homeTenantID`: `common`, `organizations` and no tenant at all mean the home tenant;
    /// any other name or GUID is that tenant (``tenantID(for:)``).
    public static func realm(for tenant: String, homeTenantID: String) -> String {
        switch CacheKey.normalized(tenant) {
        // The home tenant as named, whatever its form (a cache another SDK wrote may use any).
        case "", "common", "organizations", CacheKey.normalized(homeTenantID): homeTenantID
        default: tenantID(for: tenant)
        }
    }

    /// The user's object ID in `tenantID`: derived from the lowercased username and the tenant.
    public static func objectID(username: String, tenantID: String) -> String {
        StableUUID.from("oid:\(CacheKey.normalized(username))@\(tenantID)")
    }

    /// The user an interactive sign-in to `tenant` authenticates: in the home tenant, or a
    /// guest profile (same home account ID, that tenant's realm and object ID) in another.
    func user(username: String, tenant: String) -> IssuedUser {
        let homeTenantID = Self.homeTenantID(forUsername: username)
        let homeObjectID = Self.objectID(username: username, tenantID: homeTenantID)
        let realm = Self.realm(for: tenant, homeTenantID: homeTenantID)
        return IssuedUser(
            homeAccountID: "\(homeObjectID).\(homeTenantID)",
            objectID: realm == homeTenantID ? homeObjectID : Self.objectID(username: username, tenantID: realm), tenantID: realm,
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

    /// `account`'s profile in `tenant`, as a silent request to that tenant's authority redeems
    /// the account's one refresh token for it: the record itself when it is of that realm; the
    /// home tenant's identifiers for `common`, `organizations` or the home tenant; else a guest
    /// profile, the object ID the issuer gives the user there.
    func profile(of account: CachedAccount, inTenant tenant: String) -> CachedAccount {
        let parts = account.homeAccountID.split(separator: ".", maxSplits: 1).map(String.init)
        let homeTenantID = parts.count == 2 ? parts[1] : account.tenantID
        let realm = Self.realm(for: tenant, homeTenantID: homeTenantID)
        if CacheKey.normalized(realm) == CacheKey.normalized(account.tenantID) { return account }
        let isHome = CacheKey.normalized(realm) == CacheKey.normalized(homeTenantID)
        return CachedAccount(
            homeAccountID: account.homeAccountID, environment: account.environment, tenantID: isHome ? homeTenantID : realm,
            localAccountID: isHome ? parts.first : Self.objectID(username: account.username, tenantID: realm),
            username: account.username, name: account.name, authorityType: account.authorityType)
    }

    /// Why the server refuses `token` from `clientID`, or nil when it accepts it. A family
    /// token is accepted only from a client the server puts in that family (`familyID`, see
    /// ``familyID(ofClient:configured:)``); from any other it is `client_mismatch`.
    func refusal(of token: Credential, asFamilyToken: Bool, clientID: String, familyID: String?) -> ServerRefusal? {
        if asFamilyToken {
            guard let family = token.family, let familyID, CacheKey.normalized(familyID) == CacheKey.normalized(family) else {
                return ServerRefusal(
                    subError: .clientMismatch,
                    reason: "client \(DisplayText(clientID)) is not a member of family \(DisplayText(token.family ?? "(none)"))")
            }
            return nil
        }
        guard CacheKey.normalized(token.clientID) == CacheKey.normalized(clientID) else {
            return ServerRefusal(subError: nil, reason: "the refresh token was issued to client \(DisplayText(token.clientID))")
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
            // The issuer names the host requests go to (`preferred_network`), not the cache's.
            idToken: idToken(
                for: user, clientID: clientID, environment: InstanceDiscovery.cloudOrOwn(for: environment).preferredNetwork,
                issuedAt: now, expiresOn: expiresOn),
            issuedAt: now, expiresOn: expiresOn, extendedExpiresOn: expiresOn.addingTimeInterval(accessTokenLifetime),
            refreshOn: refreshIn.map { now.addingTimeInterval($0) })
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

/// The user the emulated issuer mints tokens for.
struct IssuedUser: Sendable, Hashable, Codable {
    var homeAccountID: String
    var objectID: String
    var tenantID: String
    var username: String
    var name: String

    /// `client_info` as the server returns it: base64url of `{"uid": oid, "utid": tid}`.
    var clientInfo: String {
        let uid = homeAccountID.split(separator: ".", maxSplits: 1).first.map(String.init) ?? objectID
        let utid = homeAccountID.split(separator: ".", maxSplits: 1).dropFirst().first.map(String.init) ?? tenantID
        return Base64URL.encode(CacheJSON.data(["uid": .string(uid), "utid": .string(utid)]))
    }

    func account(environment: String) -> CachedAccount {
        CachedAccount(
            homeAccountID: homeAccountID, environment: environment, tenantID: tenantID,
            localAccountID: objectID, username: username, name: name, authorityType: .msSTS)
    }

    /// A display name from the username's local part: `alice.smith@…` becomes `Alice Smith`.
    static func displayName(for username: String) -> String {
        let local = username.split(separator: "@").first.map(String.init) ?? username
        let words = local.split(whereSeparator: { $0 == "." || $0 == "_" || $0 == "-" })
        return words.isEmpty ? username : words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}

/// UUID-formatted identifiers derived from names, the same in every process and on every
/// machine (Swift's `Hasher` is seeded per process, so it cannot be used).
enum StableUUID {
    /// FNV-1a, 128 bits, shaped as an RFC 9562 version 8 ("custom") UUID, lowercased.
    static func from(_ name: String) -> String {
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013b
        for byte in name.utf8 {
            hash ^= UInt128(byte)
            hash = hash &* prime
        }
        // Version 8 in bits 48-51 (from the top), variant 0b10 in bits 64-65.
        hash = (hash & ~(UInt128(0xf) << 76)) | (UInt128(0x8) << 76)
        hash = (hash & ~(UInt128(0x3) << 62)) | (UInt128(0x2) << 62)
        let hex = String(hash, radix: 16)
        let digits = Array(String(repeating: "0", count: 32 - hex.count) + hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(digits[$0]) }.joined(separator: "-")
    }

    /// Whether `text` is a UUID in its usual 8-4-4-4-12 hex form.
    static func isUUID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.map(\.count) == [8, 4, 4, 4, 12]
            && parts.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }
}

/// Base64url without padding (RFC 4648 §5), as JWTs and `client_info` use it.
enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`; nil when it is not base64url (padding optional).
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    /// Random bytes from the system's secure generator, encoded.
    static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return encode(Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }
}

/// What the emulated token endpoint returns, already shaped as the cache items the SDK writes.
struct TokenResponse: Sendable {
    let user: IssuedUser
    let clientID: String
    let environment: String
    /// The family the server says the client belongs to (`foci`), or nil.
    let familyID: String?
    let scopes: [String]
    let accessToken: String
    let refreshToken: String
    let idToken: String
    let issuedAt: Date
    let expiresOn: Date
    let extendedExpiresOn: Date
    /// When MSAL is to refresh the access token proactively: issue time + `refresh_in`, when
    /// the server sent one.
    var refreshOn: Date?
    /// The authority the request named (`providedAuthority`), when the save should record what
    /// it resolved to in the account metadata's authority map; nil for none.
    var requestAuthority: Authority? = nil

    var account: CachedAccount { user.account(environment: environment) }

    /// The authority the response came from (`MSIDAADV2Oauth2Factory
    /// resultAuthorityWithConfiguration`: the request's host with the ID token's realm).
    var resultAuthority: String? { requestAuthority?.withTenant(user.tenantID) }

    /// Only the access token carries `cached_at` (`MSIDOauth2Factory.m` `fillAccessToken`; the
    /// refresh and ID token payloads of `MSIDCacheSchemaValidationTests.m` have none).
    var accessTokenCredential: Credential {
        Credential(
            type: .accessToken, secret: accessToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, realm: user.tenantID, target: scopes.joined(separator: " "),
            cachedAt: issuedAt, expiresOn: expiresOn, extendedExpiresOn: extendedExpiresOn, refreshOn: refreshOn)
    }

    /// The refresh token; stored once under the client and, in a family, once more under the
    /// family ID (with the same JSON: `client_id` is this client, whoever wrote it last).
    var refreshTokenCredential: Credential {
        Credential(
            type: .refreshToken, secret: refreshToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, familyID: familyID)
    }

    var idTokenCredential: Credential {
        Credential(
            type: .idToken, secret: idToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, realm: user.tenantID)
    }

    /// Without a family the SDK records an empty `family_id`: the server said "no family".
    var appMetadata: AppMetadata {
        AppMetadata(clientID: clientID, environment: environment, familyID: familyID ?? "")
    }
}
