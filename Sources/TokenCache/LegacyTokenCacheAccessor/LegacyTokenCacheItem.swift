import Foundation

/// One of ADAL's legacy items (IdentityCore `cache/token/MSIDLegacyTokenCacheItem.m`): an access
/// token for one resource, a multi-resource refresh token, or both (a single-resource token).
///
/// Stored as an `NSKeyedArchiver` archive (secure coding) whose root object is archived under
/// the class name `ADTokenCacheStoreItem` and whose user information is `ADUserInformation`,
/// the names ADAL 1.x gave them (`MSIDKeyedArchiverSerializer.m`), so ADAL of every version and
/// MSAL's legacy accessor read it.
struct LegacyTokenCacheItem: Sendable, Hashable {
    /// The class name the root object is archived under.
    static let archivedClassName = "ADTokenCacheStoreItem"
    /// The class name of the nested user information.
    static let archivedUserInformationClassName = "ADUserInformation"
    /// `MSID_OAUTH2_BEARER`, the default `accessTokenType`.
    static let bearer = "Bearer"

    /// `https://<environment>/<realm>`.
    var authority: String
    var accessToken: String?
    var refreshToken: String?
    /// The raw ID token (`userInformation.rawIdToken`).
    var idToken: String?
    var accessTokenType: String = Self.bearer
    var clientID: String
    /// The resource of an access token; nil for a refresh token.
    var resource: String?
    var familyID: String?
    var expiresOn: Date?
    var cachedAt: Date?
    /// Kept in `additionalServer` under `extended_expires_on`.
    var extendedExpiresOn: Date?
    var homeAccountID: String?

    /// What the item holds (`MSIDCredentialTypeHelpers credentialTypeWithRefreshToken:accessToken:`).
    enum Kind: Sendable, Hashable {
        case accessToken, refreshToken, singleResourceToken
    }

    var kind: Kind {
        switch (accessToken != nil, refreshToken != nil) {
        case (true, true): .singleResourceToken
        case (false, true): .refreshToken
        default: .accessToken
        }
    }

    /// The authority's host (`msidHostWithPortIfNecessary`).
    var environment: String {
        URLComponents(string: authority)?.host.map(CacheKey.normalized) ?? ""
    }

    /// The authority's tenant (`msidAADTenant`): its first path component.
    var realm: String { Self.realm(ofAuthority: authority) }

    /// The first path component of `authority` (`https://host/<realm>`), or empty.
    static func realm(ofAuthority authority: String) -> String {
        URLComponents(string: authority)?.path.split(separator: "/").first.map(String.init) ?? ""
    }

    /// The ID token's claims, when it has one that decodes.
    var idTokenClaims: JSONObject? { idToken.flatMap(Self.claims(ofIDToken:)) }

    /// The payload of an (unsigned or signed) JWT, when it decodes to a JSON object.
    static func claims(ofIDToken idToken: String) -> JSONObject? {
        let parts = idToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, let payload = Base64URL.decode(String(parts[1])) else { return nil }
        return CacheJSON.object(from: payload)
    }

    /// `MSIDIdTokenClaims userId`: the UPN-like name the ID token carries, which is what the
    /// SDK deletes by (`clearCacheForAccount`); nil without a usable ID token.
    var userID: String? { idTokenClaims.flatMap(Self.userID(claims:)) }

    /// The claims' user ID: a displayable name when there is one, else an object ID.
    static func userID(claims: JSONObject) -> String? {
        for key in displayableUserIDClaims + ["oid", "sub"] {
            if let value = claims[key]?.stringValue, !value.trimmingWhitespace.isEmpty { return value }
        }
        return nil
    }

    /// The claims a displayable user ID comes from, in the order they are tried.
    static let displayableUserIDClaims = ["upn", "preferred_username", "email", "unique_name"]

    /// The account the ID token describes, as MSAL's legacy accessor builds it
    /// (`accountsWithAuthority`); nil without a home account ID or username.
    var account: CachedAccount? {
        guard let homeAccountID, !homeAccountID.isEmpty, let username = idTokenClaims?["preferred_username"]?.stringValue ?? userID else {
            return nil
        }
        let claims = idTokenClaims ?? [:]
        let tenant = claims["tid"]?.stringValue ?? homeAccountID.split(separator: ".").dropFirst().first.map(String.init) ?? realm
        return CachedAccount(
            homeAccountID: homeAccountID, environment: environment, tenantID: tenant,
            localAccountID: claims["oid"]?.stringValue, username: username, name: claims["name"]?.stringValue,
            authorityType: .msSTS)
    }
}

extension LegacyTokenCacheItem {
    /// The archive as IdentityCore writes it: `NSKeyedArchiver` with secure coding, the root
    /// object under `NSKeyedArchiveRootObjectKey`, class names mapped to ADAL's.
    func archive() throws(TokenCacheError) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode(ArchivedTokenCacheItem(self), forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        // swift-corelibs-foundation stores `setClassName(_:for:)` under one spelling of the class
        // and looks it up under another, so the mapping never applies: the class records are
        // renamed in the finished archive instead.
        do {
            return try KeyedArchiveClassNames.rename(archiver.encodedData, [
                NSStringFromClass(ArchivedTokenCacheItem.self): Self.archivedClassName,
                NSStringFromClass(ArchivedUserInformation.self): Self.archivedUserInformationClassName,
            ])
        } catch {
            throw .invalidArgument("cannot archive the ADAL token cache item: \(error.reason)")
        }
    }

    /// Reads an archive ADAL or this emulator wrote, with ``KeyedArchive``'s checks and limits
    /// (never `NSKeyedUnarchiver`, which stops the process on a crafted archive). As with secure
    /// coding, only the item's classes and Foundation's value classes may appear.
    init(archive data: Data) throws(FieldError) {
        do throws(ItemDecodingError) {
            let root = try KeyedArchive.root(of: data, allowing: Self.archivedClasses)
            guard case .object(Self.archivedClassName, _) = root else {
                throw .wrongType(key: NSKeyedArchiveRootObjectKey, expected: "an \(Self.archivedClassName)", found: root.kindName)
            }
            guard let authority = try root.string("authority"), let clientID = try root.string("clientId") else {
                throw .malformed("the \(Self.archivedClassName) has no client ID or no authority")
            }
            let userInformation = try root.object("userInformation", className: Self.archivedUserInformationClassName)
            let server = try root.object("additionalServer", className: "NSDictionary")
            self.init(
                authority: authority, accessToken: try root.string("accessToken"), refreshToken: try root.string("refreshToken"),
                idToken: try userInformation?.string("rawIdToken"), accessTokenType: try root.string("accessTokenType") ?? Self.bearer,
                clientID: clientID, resource: try root.string("resource"), familyID: try root.string("familyId"),
                expiresOn: try root.date("expiresOn"), cachedAt: try root.date("cachedAt"),
                extendedExpiresOn: try server?.date("extended_expires_on"), homeAccountID: try root.string("homeAccountId"))
        } catch {
            throw FieldError(error.reason)
        }
    }

    /// The classes an item's archive may hold.
    static let archivedClasses = KeyedArchive.valueClasses.union([archivedClassName, archivedUserInformationClassName])
}

/// Class names in a finished `NSKeyedArchiver` archive.
enum KeyedArchiveClassNames {
    /// `data` with each class record (`$classname`, `$classes`) named as `names` says, written
    /// back as a binary property list; object references are kept as they are.
    static func rename(_ data: Data, _ names: [String: String]) throws(FieldError) -> Data {
        var format = PropertyListSerialization.PropertyListFormat.binary
        guard var root = try? PropertyListSerialization.propertyList(from: data, options: [], format: &format) as? [String: Any],
              var objects = root["$objects"] as? [Any]
        else { throw FieldError("the value is not an NSKeyedArchiver archive") }
        for (index, object) in objects.enumerated() {
            guard var record = object as? [String: Any], let name = record["$classname"] as? String else { continue }
            record["$classname"] = names[name] ?? name
            if let chain = record["$classes"] as? [String] { record["$classes"] = chain.map { names[$0] ?? $0 } }
            objects[index] = record
        }
        root["$objects"] = objects
        do { return try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0) } catch {
            throw FieldError("cannot write the archive back: \(error.localizedDescription)")
        }
    }
}

/// The archived form of ``LegacyTokenCacheItem``: `MSIDLegacyTokenCacheItem encodeWithCoder:`'s
/// keys, in its order.
final class ArchivedTokenCacheItem: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    let item: LegacyTokenCacheItem?

    init(_ item: LegacyTokenCacheItem) {
        self.item = item
    }

    func encode(with coder: NSCoder) {
        guard let item else { return }
        coder.encode(NSString(string: item.authority), forKey: "authority")
        coder.encode(item.accessToken.map(NSString.init(string:)), forKey: "accessToken")
        coder.encode(item.refreshToken.map(NSString.init(string:)), forKey: "refreshToken")
        coder.encode(ArchivedUserInformation(rawIDToken: item.idToken), forKey: "userInformation")
        coder.encode(NSString(string: item.accessTokenType.trimmingWhitespace.isEmpty ? LegacyTokenCacheItem.bearer : item.accessTokenType), forKey: "accessTokenType")
        coder.encode(NSString(string: item.clientID), forKey: "clientId")
        coder.encode(item.resource.map(NSString.init(string:)), forKey: "resource")
        coder.encode(item.expiresOn.map { NSDate(timeIntervalSince1970: $0.timeIntervalSince1970) }, forKey: "expiresOn")
        coder.encode(item.cachedAt.map { NSDate(timeIntervalSince1970: $0.timeIntervalSince1970) }, forKey: "cachedAt")
        coder.encode(item.familyID.map(NSString.init(string:)), forKey: "familyId")
        coder.encode(NSMutableDictionary(), forKey: "additionalClient")
        let additionalServer = NSMutableDictionary()
        if let extended = item.extendedExpiresOn {
            additionalServer[NSString(string: "extended_expires_on")] = NSDate(timeIntervalSince1970: extended.timeIntervalSince1970)
        }
        coder.encode(additionalServer, forKey: "additionalServer")
        coder.encode(item.homeAccountID.map(NSString.init(string:)), forKey: "homeAccountId")
        coder.encode(nil as NSString?, forKey: "enrollmentId")
        coder.encode(nil as NSString?, forKey: "applicationIdentifier")
    }

    init?(coder: NSCoder) {
        let string = { (key: String) in coder.decodeObject(of: NSString.self, forKey: key).map { String($0) } }
        let date = { (key: String) in coder.decodeObject(of: NSDate.self, forKey: key).map { Date(timeIntervalSince1970: $0.timeIntervalSince1970) } }
        guard let authority = string("authority"), let clientID = string("clientId") else {
            item = nil
            return
        }
        let userInformation = coder.decodeObject(of: ArchivedUserInformation.self, forKey: "userInformation")
        let server = coder.decodeObject(of: [NSDictionary.self, NSDate.self, NSString.self, NSNumber.self, NSURL.self], forKey: "additionalServer") as? NSDictionary
        let extended = (server?[NSString(string: "extended_expires_on")] as? NSDate).map { Date(timeIntervalSince1970: $0.timeIntervalSince1970) }
        item = LegacyTokenCacheItem(
            authority: authority, accessToken: string("accessToken"), refreshToken: string("refreshToken"),
            idToken: userInformation?.rawIDToken, accessTokenType: string("accessTokenType") ?? LegacyTokenCacheItem.bearer,
            clientID: clientID, resource: string("resource"), familyID: string("familyId"),
            expiresOn: date("expiresOn"), cachedAt: date("cachedAt"), extendedExpiresOn: extended,
            homeAccountID: string("homeAccountId"))
    }
}

/// `MSIDUserInformation` as ADAL archives it (`ADUserInformation`): the raw ID token and, on
/// iOS, for ADAL 1.x, its claims, the user ID and whether that is displayable.
final class ArchivedUserInformation: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }

    let rawIDToken: String?

    init(rawIDToken: String?) {
        self.rawIDToken = rawIDToken
    }

    func encode(with coder: NSCoder) {
        coder.encode(rawIDToken.map(NSString.init(string:)), forKey: "rawIdToken")
        // ADAL 1.x reads these three instead of parsing the ID token itself.
        let claims = rawIDToken.flatMap(LegacyTokenCacheItem.claims(ofIDToken:))
        coder.encode(claims.map(Self.foundationDictionary), forKey: "allClaims")
        coder.encode(claims.flatMap(LegacyTokenCacheItem.userID(claims:)).map(NSString.init(string:)), forKey: "userId")
        let displayable = claims.map { claims in
            LegacyTokenCacheItem.displayableUserIDClaims.contains { claims[$0]?.stringValue?.isEmpty == false }
        } ?? false
        coder.encode(displayable, forKey: "userIdDisplayable")
    }

    init?(coder: NSCoder) {
        rawIDToken = coder.decodeObject(of: NSString.self, forKey: "rawIdToken").map { String($0) }
    }

    /// Claims as Foundation objects (`NSString`, `NSNumber`, `NSArray`, `NSDictionary`).
    static func foundationDictionary(_ object: JSONObject) -> NSDictionary {
        let dictionary = NSMutableDictionary()
        for (key, value) in object { dictionary[NSString(string: key)] = foundationObject(value) }
        return dictionary
    }

    private static func foundationObject(_ value: JSONValue) -> NSObject {
        switch value {
        case .null: NSNull()
        case .bool(let flag): NSNumber(value: flag)
        case .integer(let number): NSNumber(value: number)
        case .number(let number): NSNumber(value: number)
        case .string(let text): NSString(string: text)
        case .array(let values): NSArray(array: values.map(foundationObject))
        case .object(let object): foundationDictionary(object)
        }
    }
}
