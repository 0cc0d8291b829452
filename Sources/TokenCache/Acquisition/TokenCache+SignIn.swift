import Foundation
import SharedKeychain

extension TokenCache {
    /// An interactive sign-in against the emulated issuer: mints an access token, a refresh
    /// token (and the family refresh token when the app is in a family), an ID token, the
    /// account and the app metadata, and writes them as the SDK does.
    ///
    /// The request authority is `https://<authority host>/<tenant>`; when the response's tenant
    /// differs from it (`/common`, a domain name), the save maps one to the other in the account
    /// metadata, as MSAL does.
    ///
    /// - Parameters:
    ///   - username: the user's sign-in name (`alice@contoso.com`).
    ///   - tenant: the authority's tenant: `common`, `organizations`, `consumers`, a tenant GUID
    ///     or a domain name; `common` and `organizations` authenticate in the
    ///     user's home tenant (``EmulatedIssuer/homeTenantID(forUsername:)``), any other tenant
    ///     makes a guest profile under the same home account ID.
    ///   - scopes: what the access token is for.
    @discardableResult
    public func signIn(username: String, tenant: String = "common", scopes: [String] = TokenCache.defaultScopes) throws(TokenCacheError) -> AuthenticationResult {
        guard !username.trimmingWhitespace.isEmpty else { throw .invalidArgument("the username is empty") }
        let scopes = try Self.normalized(scopes)
        let requestAuthority: Authority
        do { requestAuthority = try Authority(host: configuration.authorityHost, tenant: tenant) } catch { throw .invalidArgument(error.message) }
        let user = issuer.user(username: username, tenant: tenant)
        var response = issuer.issue(
            to: user, clientID: clientID, familyID: serverFamilyID, environment: environment, scopes: scopes, at: now())
        response.requestAuthority = requestAuthority
        let failures = switch configuration.sdk {
        case .msal: defaultAccessor.saveTokens(response)
        case .adal: legacySaveFailures { () throws(TokenCacheError) in
            try legacyAccessor.saveTokens(response, realm: LegacyResource.realm(forTenant: tenant), otherAccessor: defaultAccessor)
        }
        }
        return result(of: response, source: .interactive, cacheSaveFailures: failures)
    }

    /// ADAL's save of a response: a failure is logged and the result still returned, as MSAL's.
    func legacySaveFailures(_ save: () throws(TokenCacheError) -> Void) -> [CacheSaveFailure] {
        CacheSaveRecorder.run(.tokens, save).map { [$0] } ?? []
    }

    func result(of response: TokenResponse, source: TokenSource, cacheSaveFailures: [CacheSaveFailure] = []) -> AuthenticationResult {
        AuthenticationResult(
            accessToken: TokenSecret(response.accessToken), idToken: TokenSecret(response.idToken),
            scopes: response.scopes, expiresOn: response.expiresOn, account: response.account,
            tenantID: response.user.tenantID, source: source, cacheSaveFailures: cacheSaveFailures)
    }

    /// Scopes trimmed, without empties or case-insensitive duplicates, in the order given.
    static func normalized(_ scopes: [String]) throws(TokenCacheError) -> [String] {
        var seen = Set<String>()
        let cleaned = scopes
            .flatMap { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
            .filter { seen.insert($0.lowercased()).inserted }
        guard !cleaned.isEmpty else { throw .invalidArgument("at least one scope is needed") }
        return cleaned
    }
}

/// What a sign-in or a silent acquisition returns. Its description masks every token.
public struct AuthenticationResult: Sendable, Hashable, CustomStringConvertible {
    /// The access token; printing it shows only a masked form.
    public let accessToken: TokenSecret
    /// The ID token (an emulated, unsigned JWT), when the cache holds one for the account.
    public let idToken: TokenSecret?
    /// The scopes the access token is valid for.
    public let scopes: [String]
    /// When the access token expires.
    public let expiresOn: Date
    /// The signed-in account.
    public let account: CachedAccount
    /// The tenant the token was issued in.
    public let tenantID: String
    /// Which path produced the token.
    public let source: TokenSource
    /// The cache writes that failed while the token was still returned, as MSAL returns it;
    /// empty when the response was cached whole. The next launch finds only what was written.
    public let cacheSaveFailures: [CacheSaveFailure]

    /// - Parameters: the token and what it was issued for; `cacheSaveFailures`, the failed
    ///   cache writes (see the property).
    public init(
        accessToken: TokenSecret, idToken: TokenSecret?, scopes: [String], expiresOn: Date,
        account: CachedAccount, tenantID: String, source: TokenSource, cacheSaveFailures: [CacheSaveFailure] = []
    ) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.scopes = scopes
        self.expiresOn = expiresOn
        self.account = account
        self.tenantID = tenantID
        self.source = source
        self.cacheSaveFailures = cacheSaveFailures
    }

    /// One line for people, tokens masked.
    public var description: String {
        "\(DisplayText(account.username)): access token \(accessToken.masked) for '\(DisplayText(scopes.joined(separator: " ")))', expires \(expiresOn.formatted(.iso8601)), from \(source)"
    }
}

/// How a token was obtained.
public enum TokenSource: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// An interactive sign-in (the emulated issuer).
    case interactive
    /// A valid access token already in the cache.
    case cache
    /// Redeemed the app's own refresh token.
    case refreshToken = "refresh_token"
    /// Redeemed the family refresh token another app of the family may have written (SSO).
    case familyRefreshToken = "family_refresh_token"
    /// Answered by the broker (Microsoft Authenticator), decrypted with the app's broker key.
    case broker

    /// The raw value (`family_refresh_token`).
    public var description: String { rawValue }
}
