import Crypto
import Foundation
import SharedKeychain

/// Signing in through the broker (Microsoft Authenticator), as REFERENCE 6 describes: the app
/// sends `msauthv2://broker?...` with its client ID, redirect URI, scopes and the broker key
/// of its MSAL sharing group (a `kSecClassKey` item, see ``TokenCache/brokerKey()``); the
/// broker answers on the redirect URI with the token response encrypted under that key, its
/// hash and a nonce; the app reads the group's key again, decrypts, checks the hash and caches
/// the tokens in its group.
public struct BrokerRequest: Sendable, Hashable {
    public var clientID: String
    public var redirectURI: String
    public var scopes: [String]
    public var correlationID: String
    public var loginHint: String?
    /// The broker key of the app's group when the request was made (256 bits).
    public var brokerKey: Data
    /// The client's family as the emulated server knows it from the app registration (real
    /// requests do not carry it: eSTS knows it). The broker's answer then has a family
    /// refresh token, as the server's `foci` field makes MSAL write one.
    public var familyID: String?
    public static let protocolVersion = "3"

    /// `msauthv2://broker?client_id=...&redirect_uri=...&request_scopes=...&msg_protocol_ver=3&...`
    public var url: String {
        var components = URLComponents()
        components.scheme = "msauthv2"
        components.host = "broker"
        components.queryItems = [
            URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: redirectURI),
            URLQueryItem(name: "request_scopes", value: scopes.joined(separator: " ")),
            URLQueryItem(name: "msg_protocol_ver", value: Self.protocolVersion),
            URLQueryItem(name: "correlation_id", value: correlationID),
            URLQueryItem(name: "broker_key", value: Base64URL.encode(brokerKey)),
        ] + (loginHint.map { [URLQueryItem(name: "login_hint", value: $0)] } ?? [])
            + (familyID.map { [URLQueryItem(name: "x_emulated_family_id", value: $0)] } ?? [])
        return components.string ?? ""
    }

    public init(
        clientID: String, redirectURI: String, scopes: [String], correlationID: String, loginHint: String?, brokerKey: Data,
        familyID: String? = nil
    ) {
        self.familyID = familyID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.correlationID = correlationID
        self.loginHint = loginHint
        self.brokerKey = brokerKey
    }

    /// A request from its URL; malformed ones are refused with what is wrong.
    public init(url: String) throws(TokenCacheError) {
        guard let components = URLComponents(string: url), components.scheme == "msauthv2", components.host == "broker" else {
            throw .broker("not a broker request (msauthv2://broker?...): \(url.prefix(80))")
        }
        let items = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        func required(_ name: String) throws(TokenCacheError) -> String {
            guard let value = items[name], !value.isEmpty else { throw .broker("the broker request has no \(name)") }
            return value
        }
        guard let key = Base64URL.decode(try required("broker_key")), key.count == 32 else {
            throw .broker("the broker request's broker_key is not a 256-bit key")
        }
        self.init(
            clientID: try required("client_id"), redirectURI: try required("redirect_uri"),
            scopes: try required("request_scopes").split(separator: " ").map(String.init),
            correlationID: try required("correlation_id"), loginHint: items["login_hint"], brokerKey: key,
            familyID: items["x_emulated_family_id"])
    }

    /// The bundle ID a redirect URI names (``RedirectURI/bundleID(in:)``).
    public static func bundleID(inRedirectURI uri: String) -> String? {
        RedirectURI.bundleID(in: uri)
    }
}

/// The token response the broker sends, before encryption.
struct BrokerPayload: Codable, Sendable {
    var user: IssuedUser
    var clientID: String
    var environment: String
    var scopes: [String]
    var accessToken: String
    var refreshToken: String
    var idToken: String
    var issuedAt: Date
    var expiresOn: Date
    var extendedExpiresOn: Date
    var familyID: String?
    /// Whether the broker had to prompt the user (it had no account for the hint).
    var prompted: Bool

    init(_ response: TokenResponse, prompted: Bool) {
        user = response.user
        clientID = response.clientID
        environment = response.environment
        scopes = response.scopes
        accessToken = response.accessToken
        refreshToken = response.refreshToken
        idToken = response.idToken
        issuedAt = response.issuedAt
        expiresOn = response.expiresOn
        extendedExpiresOn = response.extendedExpiresOn
        familyID = response.familyID
        self.prompted = prompted
    }

    var response: TokenResponse {
        TokenResponse(
            user: user, clientID: clientID, environment: environment, familyID: familyID, scopes: scopes,
            accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, issuedAt: issuedAt,
            expiresOn: expiresOn, extendedExpiresOn: extendedExpiresOn)
    }
}

extension TokenCache {
    /// The broker key of the app's MSAL sharing group (`MSIDBrokerKeyProvider`
    /// `brokerKeyWithError`): the `kSecClassKey` item tagged `com.microsoft.adBrokerKey\0` in
    /// the cache's group, made (random 256 bits) when the group has none. Every app of the
    /// group gets the same key.
    public func brokerKey() throws(TokenCacheError) -> Data {
        try brokerKeyProvider.brokerKey()
    }

    /// Deletes the group's broker key (`deleteSymmetricKeyWithError`): every app of the group
    /// makes a new one on its next broker request, and a response to a request made before can
    /// no longer be decrypted. Returns how many keys were deleted.
    @discardableResult
    public func deleteBrokerKey() throws(TokenCacheError) -> Int {
        try brokerKeyProvider.deleteSymmetricKey()
    }

    var brokerKeyProvider: BrokerKeyProvider {
        BrokerKeyProvider(keychain: keychain, group: accessGroup, trace: configuration.trace)
    }

    /// A broker request for `account` (a login hint) from this app, presenting `redirectURI`.
    public func brokerRequest(loginHint: String?, scopes: [String], redirectURI: String) throws(TokenCacheError) -> BrokerRequest {
        BrokerRequest(
            clientID: clientID, redirectURI: redirectURI, scopes: try Self.normalized(scopes),
            correlationID: UUID().uuidString.lowercased(), loginHint: loginHint, brokerKey: try brokerKey(),
            familyID: serverFamilyID)
    }

    /// Takes the broker's answer to `request`: reads the group's broker key again, as
    /// `MSIDBrokerResponseHandler` does (making one when it is gone), decrypts the answer with
    /// it, checks its hash, and caches the tokens in the group as a sign-in would. A key deleted
    /// or replaced since the request fails with
    /// ``TokenCacheError/brokerResponseDecryptionFailed(app:group:)``.
    public func acceptBrokerResponse(_ url: String, to request: BrokerRequest) throws(TokenCacheError) -> AuthenticationResult {
        guard let components = URLComponents(string: url) else { throw .broker("the broker's answer is not a URL") }
        let items = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }) { first, _ in first }
        if let error = items["error_description"] { throw .broker("the broker refused: \(error)") }
        guard let sealed = items["response"].flatMap(Base64URL.decode), let hash = items["hash"] else {
            throw .broker("the broker's answer has no response or hash")
        }
        let key = try brokerKey()
        let plain: Data
        do {
            plain = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: SymmetricKey(data: key))
        } catch {
            throw .brokerResponseDecryptionFailed(app: keychain.app.bundleID, group: accessGroup)
        }
        guard Self.hashHex(plain) == hash.lowercased() else { throw .broker("the broker's response does not match its hash") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let payload = try? decoder.decode(BrokerPayload.self, from: plain), payload.clientID == clientID else {
            throw .broker("the broker's response is not a token response for client \(clientID)")
        }
        let response = payload.response
        let failures = defaultAccessor.saveTokens(response)
        return result(of: response, source: .broker, cacheSaveFailures: failures)
    }

    static func hashHex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}

/// The broker app's side: it knows the caller from the device (never from the request), keeps
/// its own tokens in its own keychain group, and answers each app on its redirect URI.
public struct BrokerService: Sendable {
    /// The broker's own cache, in its own group.
    public let cache: TokenCache

    public init(cache: TokenCache) {
        self.cache = cache
    }

    /// Answers `requestURL` from the app the device reports as `caller`: the response URL, or
    /// a refusal when the redirect URI names another app. `prompt` stands for the sign-in UI
    /// the broker shows when it holds no account for the hint.
    public func handle(_ requestURL: String, caller: String) throws(TokenCacheError) -> BrokerAnswer {
        let request = try BrokerRequest(url: requestURL)
        guard let named = BrokerRequest.bundleID(inRedirectURI: request.redirectURI) else {
            throw .broker("the broker refuses redirect URI \(request.redirectURI): it names no app (expected \(RedirectURI.msalDefault(bundleID: caller)))")
        }
        guard named.lowercased() == caller.lowercased() else {
            throw .broker("the broker refuses: the request comes from \(caller), but its redirect URI \(request.redirectURI) belongs to \(named)")
        }
        guard let hint = request.loginHint, !hint.isEmpty else { throw .broker("the broker needs a login hint in this emulation") }
        // The broker's own account for the user, else it signs the user in (its prompt).
        var prompted = false
        let known = try cache.accounts().first { $0.username.lowercased() == hint.lowercased() || $0.homeAccountID == hint }
        let user: IssuedUser
        if let known {
            user = cache.issuer.user(for: known)
        } else {
            let result = try cache.signIn(username: hint)
            user = cache.issuer.user(for: result.account)
            prompted = true
        }
        let response = cache.issuer.issue(
            to: user, clientID: request.clientID, familyID: request.familyID, environment: cache.environment, scopes: request.scopes,
            at: cache.now())
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let plain: Data
        let sealed: Data
        do {
            plain = try encoder.encode(BrokerPayload(response, prompted: prompted))
            guard let combined = try AES.GCM.seal(plain, using: SymmetricKey(data: request.brokerKey)).combined else {
                throw TokenCacheError.broker("cannot seal the broker response")
            }
            sealed = combined
        } catch {
            throw .broker("cannot encrypt the broker response: \(error)")
        }
        var components = URLComponents(string: request.redirectURI) ?? URLComponents()
        components.queryItems = [
            URLQueryItem(name: "response", value: Base64URL.encode(sealed)),
            URLQueryItem(name: "hash", value: TokenCache.hashHex(plain)),
            URLQueryItem(name: "broker_nonce", value: UUID().uuidString.lowercased()),
        ]
        return BrokerAnswer(url: components.string ?? request.redirectURI, prompted: prompted)
    }
}
