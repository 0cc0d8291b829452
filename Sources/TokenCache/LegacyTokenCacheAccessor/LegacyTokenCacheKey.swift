import Foundation
import SharedKeychain

/// Where ADAL keeps one legacy item (IdentityCore `cache/key/MSIDLegacyTokenCacheKey.m`):
///
/// | attribute | value |
/// |---|---|
/// | account | `base64url(normalized UPN)` (trimmed, lowercased) |
/// | service | `MSOpenTech.ADAL.1|<b64url authority>|<b64url resource>|<b64url client ID>`, the resource the plain GUID `CC3513A0-0E69-4B4D-97FC-DFB6C91EE132` when there is none |
/// | generic | `MSOpenTech.ADAL.1` |
/// | type | none |
///
/// The authority is `https://<environment>/<realm>` (`common` for a blank realm); authority,
/// resource and client ID are trimmed and lowercased before they are encoded.
struct LegacyTokenCacheKey: Sendable, Hashable {
    /// `MSID_LEGACY_CACHE_NIL_KEY`: written unencoded in place of a missing resource.
    static let nilKey = "CC3513A0-0E69-4B4D-97FC-DFB6C91EE132"
    /// `s_adalLibraryString`: the service prefix and every legacy item's generic.
    static let library = "MSOpenTech.ADAL.1"
    /// `kSecAttrGeneric` of every legacy item, and part of every legacy query.
    static let generic = Data(library.utf8)

    var authority: String
    var clientID: String
    var resource: String?
    var userID: String

    /// `initWithEnvironment:realm:clientId:resource:legacyUserId:`.
    init(environment: String, realm: String, clientID: String, resource: String?, userID: String) {
        self.init(authority: Self.authority(environment: environment, realm: realm), clientID: clientID, resource: resource, userID: userID)
    }

    /// `initWithAuthority:clientId:resource:legacyUserId:`.
    init(authority: String, clientID: String, resource: String?, userID: String) {
        self.authority = authority
        self.clientID = clientID
        self.resource = resource
        self.userID = userID
    }

    /// `NSURL msidAADURLWithEnvironment:tenant:`: `https://<environment>/<realm>`, `common`
    /// when the realm is blank.
    static func authority(environment: String, realm: String?) -> String {
        let tenant = (realm ?? "").trimmingWhitespace
        return "https://\(environment.trimmingWhitespace)/\(tenant.isEmpty ? "common" : tenant)"
    }

    /// `adalAccountWithUserId:` on iOS: the normalized user ID, base64url-encoded.
    static func account(userID: String) -> String {
        Base64URL.encode(Data(CacheKey.normalized(userID).utf8))
    }

    var account: String { Self.account(userID: userID) }

    /// `serviceWithAuthority:resource:clientId:appKey:` without an app key or application ID.
    var service: String {
        let encode = { (text: String) in Base64URL.encode(Data(CacheKey.normalized(text).utf8)) }
        let resourcePart = resource.map(CacheKey.normalized).flatMap { $0.isEmpty ? nil : $0 }.map(encode) ?? Self.nilKey
        return [Self.library, encode(authority), resourcePart, encode(clientID)].joined(separator: "|")
    }

    /// The item's place in the group: account, service, generic, no type.
    var layout: ItemLayout {
        ItemLayout(account: account, service: service, generic: Self.generic, type: nil)
    }

    /// `setServiceKeyComponents`: authority, resource and client ID read back from a service
    /// of four parts; nil for any other string.
    static func components(ofService service: String) -> (authority: String, resource: String?, clientID: String)? {
        let parts = service.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 4, parts[0].hasPrefix(library) else { return nil }
        let decode = { (text: String) in Base64URL.decode(text).flatMap { String(data: $0, encoding: .utf8) } }
        guard let authority = decode(parts[1]), let clientID = decode(parts[3]) else { return nil }
        let resource = parts[2] == nilKey ? nil : decode(parts[2])
        return (authority, resource, clientID)
    }

    /// Whether `item` is one of ADAL's legacy items: generic `MSOpenTech.ADAL.1` and no type.
    static func isLegacy(_ item: KeychainItem) -> Bool {
        item.type == nil && item.generic == generic
    }
}
