import Foundation
import SharedKeychain

/// An access, refresh or ID token in the unified cache schema.
struct Credential: Sendable, Hashable {
    var type: CredentialType
    var secret: String
    var homeAccountID: String
    var environment: String
    var clientID: String
    var realm: String?
    var target: String?
    var cachedAt: Date?
    var expiresOn: Date?
    var extendedExpiresOn: Date?
    /// An access token's `refresh_on`: when MSAL refreshes it although it has not expired.
    var refreshOn: Date?
    /// As written, empty string included; ``family`` is the usable form.
    var familyID: String?

    init(
        type: CredentialType, secret: String, homeAccountID: String, environment: String, clientID: String,
        realm: String? = nil, target: String? = nil, cachedAt: Date? = nil, expiresOn: Date? = nil,
        extendedExpiresOn: Date? = nil, familyID: String? = nil, refreshOn: Date? = nil
    ) {
        self.type = type
        self.secret = secret
        self.homeAccountID = homeAccountID
        self.environment = environment
        self.clientID = clientID
        self.realm = realm
        self.target = target
        self.cachedAt = cachedAt
        self.expiresOn = expiresOn
        self.extendedExpiresOn = extendedExpiresOn
        self.refreshOn = refreshOn
        self.familyID = familyID
    }

    /// Reads a stored value. An item without a `secret` is refused, as the SDKs refuse it.
    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        let typeName = try fields.string("credential_type")
        guard let type = CredentialType.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(typeName) == .orderedSame }) else {
            throw FieldError("'credential_type' is '\(DisplayText(typeName))'; expected AccessToken, RefreshToken, IdToken or FamilyRefreshToken")
        }
        self.type = type
        secret = try fields.string("secret")
        homeAccountID = try fields.string("home_account_id")
        environment = try fields.string("environment")
        clientID = try fields.string("client_id")
        realm = try fields.optionalString("realm")
        target = try fields.optionalString("target")
        cachedAt = try fields.timestamp("cached_at")
        expiresOn = try fields.timestamp("expires_on")
        extendedExpiresOn = try fields.timestamp("extended_expires_on")
        refreshOn = try fields.timestamp("refresh_on")
        familyID = try fields.optionalString("family_id")
        switch type {
        case .accessToken:
            _ = try fields.string("realm")
            _ = try fields.string("target")
            if expiresOn == nil { throw FieldError("'expires_on' is missing") }
        case .idToken:
            _ = try fields.string("realm")
        case .refreshToken, .familyRefreshToken:
            break
        }
    }

    /// The family ID when the token belongs to one (`family_id` present and not empty).
    var family: String? {
        familyID.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `MSIDAccessToken.m` `refreshNeeded`: an access token cached in the future (the clock went
    /// back) or whose `refresh_on` has passed is refreshed although it has not expired.
    func refreshNeeded(at date: Date) -> Bool {
        if let cachedAt, date < cachedAt { return true }
        if let refreshOn { return refreshOn < date }
        return false
    }

    /// The scopes of `target`, lowercased: scope matching is case-insensitive.
    var scopes: Set<String> {
        Set((target ?? "").split(whereSeparator: \.isWhitespace).map { $0.lowercased() })
    }

    /// The known fields as the schema writes them (timestamps as strings).
    var fields: JSONObject {
        var object: JSONObject = [
            "credential_type": .string(type.rawValue),
            "secret": .string(secret),
            "home_account_id": .string(homeAccountID),
            "environment": .string(environment),
            "client_id": .string(clientID),
        ]
        if let realm { object["realm"] = .string(realm) }
        if let target { object["target"] = .string(target) }
        if let cachedAt { object["cached_at"] = EpochSeconds.json(cachedAt) }
        if let expiresOn { object["expires_on"] = EpochSeconds.json(expiresOn) }
        if let extendedExpiresOn { object["extended_expires_on"] = EpochSeconds.json(extendedExpiresOn) }
        if let refreshOn { object["refresh_on"] = EpochSeconds.json(refreshOn) }
        if let familyID { object["family_id"] = .string(familyID) }
        return object
    }

    /// Where the item lives. `asFamilyToken` stores a refresh token under its family ID, which is
    /// how the SDKs share it with every app of the family.
    func layout(asFamilyToken: Bool = false) -> ItemLayout {
        ItemLayout.credential(
            type, homeAccountID: homeAccountID, environment: environment,
            clientOrFamilyID: keyClient(asFamilyToken: asFamilyToken), realm: realm, target: target)
    }

    /// The entry's key in the serialized cache:
    /// `home_account_id-environment-credential_type-client_id-realm-target`, lowercased. A
    /// family refresh token is keyed by its family ID in the client part, as in the keychain, so
    /// it never collides with the refresh token of the app that wrote it.
    ///
    /// In ``CacheKeyStyle/msalPython`` a refresh token's key carries its target too, as MSAL
    /// Python writes it, and is never keyed by the family.
    func exportKey(asFamilyToken: Bool = false, style: CacheKeyStyle = .sharedKeychainV1) -> String {
        let realm = type == .refreshToken ? "" : (self.realm ?? "")
        let keepsTarget = type == .accessToken || (type == .refreshToken && style == .msalPython)
        let target = keepsTarget ? (self.target ?? "") : ""
        let asFamilyToken = asFamilyToken && style != .msalPython
        return CacheKey.normalized(
            "\(homeAccountID)-\(environment)-\(type.rawValue)-\(keyClient(asFamilyToken: asFamilyToken))-\(realm)-\(target)")
    }

    /// Whether this refresh token is stored as the family token: under `refreshtoken-<familyid>--`.
    func isFamilyToken(service: String) -> Bool {
        guard type == .refreshToken, let family, CacheKey.normalized(family) != CacheKey.normalized(clientID) else { return false }
        return service == layout(asFamilyToken: true).service
    }

    private func keyClient(asFamilyToken: Bool) -> String {
        asFamilyToken ? (family ?? clientID) : clientID
    }
}

/// The kinds of credential the cache holds, with their schema names and item types.
enum CredentialType: String, Sendable, Hashable, CaseIterable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    /// Single-FRT mode's one family token (`MSIDFamilyRefreshToken.m`): no per-client copy.
    case familyRefreshToken = "FamilyRefreshToken"

    /// `kSecAttrType`: 2000 + {AccessToken 1, RefreshToken 2, IDToken 3, FamilyRefreshToken 8}
    /// (`MSIDCredentialType.m`). In classic mode a family refresh token is stored as a refresh
    /// token (2002) keyed by the family ID.
    var itemType: UInt32 {
        switch self {
        case .accessToken: 2001
        case .refreshToken: 2002
        case .idToken: 2003
        case .familyRefreshToken: 2008
        }
    }

    /// A refresh token of either kind.
    var isRefreshToken: Bool { self == .refreshToken || self == .familyRefreshToken }

    init?(itemType: UInt32) {
        guard let match = Self.allCases.first(where: { $0.itemType == itemType }) else { return nil }
        self = match
    }

    /// The name of the section holding this kind in the serialized cache.
    var section: CacheSection {
        switch self {
        case .accessToken: .accessToken
        case .refreshToken, .familyRefreshToken: .refreshToken
        case .idToken: .idToken
        }
    }
}

/// A token's secret value. Printing, interpolating or dumping it shows only a masked form; read
/// ``value`` deliberately to get the token itself.
public struct TokenSecret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself. Never log it.
    public let value: String

    /// - Parameter value: the secret.
    public init(_ value: String) {
        self.value = value
    }

    /// A prefix of at most 12 characters (and at most a third of the secret), then the length:
    /// enough to tell tokens apart, never enough to use one.
    public var masked: String { Self.mask(value) }

    /// The masked form.
    public var description: String { masked }
    /// The masked form, labelled.
    public var debugDescription: String { "TokenSecret(\(masked))" }
    /// Keeps `dump` and debuggers to the masked form.
    public var customMirror: Mirror { Mirror(self, children: ["masked": masked]) }

    /// Masks any secret string the same way.
    public static func mask(_ secret: String) -> String {
        let visible = min(12, secret.count / 3)
        return "\(secret.prefix(visible))…(\(secret.count) chars)"
    }
}

/// The unified cache schema writes timestamps as strings of whole epoch seconds.
enum EpochSeconds {
    static func string(_ date: Date) -> String {
        String(Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    static func json(_ date: Date) -> JSONValue { .string(string(date)) }
}
