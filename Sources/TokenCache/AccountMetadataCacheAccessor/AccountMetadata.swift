import Foundation
import SharedKeychain
import Synchronization

/// MSAL's account metadata: the sign-in state of every account for ONE client, in one item per
/// client (IdentityCore `cache/metadata/accountMetadata/MSIDAccountMetadataCacheKey.m`,
/// `MSIDAccountMetadataCacheItem.m`, `MSIDAccountMetadata.m`):
///
/// | account | service | generic | type |
/// |---|---|---|---|
/// | `authority_map` | the client ID as given (not lowercased) | none | 5001 |
///
/// Its JSON: `{"client_id", ["principal_home_account_id", "principal_username",
/// "principal_account_environment"], "account_metadata_map": {<home account ID>: {"client_id",
/// "home_account_id", "athority_map": {...}, "sign_in_state"}}}` (the SDK spells `athority_map`
/// so). Apps of a suite share one client ID and so this one item, which every token response
/// and every removal read-modify-writes without a lock: two apps saving at once can lose each
/// other's entry, on a device as here.
struct AccountMetadataItem: Sendable, Hashable {
    /// `kSecAttrAccount` of every account-metadata item.
    static let account = "authority_map"

    struct Entry: Sendable, Hashable {
        var clientID: String
        var homeAccountID: String
        /// `athority_map`: request authority to cache authority; emptied by `signed_out`.
        var authorityMap: JSONObject
        var state: SignInState

        /// The entry's JSON object.
        var fields: JSONObject {
            [
                "client_id": .string(clientID), "home_account_id": .string(homeAccountID),
                "athority_map": .object(authorityMap), "sign_in_state": .string(state.rawValue),
            ]
        }
    }

    var clientID: String
    /// By home account ID as written.
    private(set) var entries: [String: Entry]
    /// The single-account API's principal fields, kept as read.
    var principal: JSONObject
    /// Whether every key of ``entries`` is in normalized form (trimmed, lowercased), as the
    /// SDK writes them: then an account's entry is found by its normalized ID alone, without
    /// comparing every key (an item holds an entry per account the client ever signed in).
    private var keysNormalized = true

    init(clientID: String) {
        self.clientID = clientID
        entries = [:]
        principal = [:]
    }

    /// Reads a stored item. Unknown keys are dropped, as the SDK rebuilds the JSON from what it
    /// parsed.
    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        clientID = try fields.string("client_id")
        principal = object.filter { ["principal_home_account_id", "principal_username", "principal_account_environment"].contains($0.key) }
        entries = [:]
        guard let map = object["account_metadata_map"] else { return }
        guard case .object(let accounts) = map else { throw FieldError("'account_metadata_map' is not an object") }
        for (homeAccountID, value) in accounts {
            guard case .object(let entry) = value else { throw FieldError("'account_metadata_map.\(DisplayText(homeAccountID))' is not an object") }
            let entryFields = FieldReader(object: entry)
            let stateName = try entryFields.optionalString("sign_in_state") ?? SignInState.unknown.rawValue
            guard let state = SignInState(rawValue: stateName) else {
                throw FieldError("'sign_in_state' of \(DisplayText(homeAccountID)) is '\(DisplayText(stateName))'; expected signed_in, signed_out or unknown")
            }
            var authorityMap: JSONObject = [:]
            if case .object(let map)? = entry["athority_map"] { authorityMap = map }
            entries[homeAccountID] = Entry(
                clientID: try entryFields.optionalString("client_id") ?? clientID,
                homeAccountID: try entryFields.optionalString("home_account_id") ?? homeAccountID,
                authorityMap: authorityMap, state: state)
            keysNormalized = keysNormalized && CacheKey.normalized(homeAccountID) == homeAccountID
        }
    }

    var fields: JSONObject {
        var object = principal
        object["client_id"] = .string(clientID)
        object["account_metadata_map"] = .object(entries.mapValues { .object($0.fields) })
        return object
    }

    /// The entry of `homeAccountID` (compared case-insensitively, as keys are normalized elsewhere).
    func entry(for homeAccountID: String) -> Entry? {
        key(of: homeAccountID).flatMap { entries[$0] }
    }

    /// The key of `homeAccountID`'s entry (compared case-insensitively), if it has one.
    private func key(of homeAccountID: String) -> String? {
        if entries[homeAccountID] != nil { return homeAccountID }
        let wanted = CacheKey.normalized(homeAccountID)
        if keysNormalized { return entries[wanted] != nil ? wanted : nil }
        return entries.keys.first { CacheKey.normalized($0) == wanted }
    }

    /// `updateSignInState` (`MSIDAccountMetadataCacheAccessor.m`): `signed_out` starts a fresh
    /// entry (its authority map emptied); another state keeps the entry's authority map.
    mutating func setState(_ state: SignInState, for homeAccountID: String) {
        let key = key(of: homeAccountID) ?? homeAccountID
        let kept = state == .signedOut ? [:] : (entries[key]?.authorityMap ?? [:])
        entries[key] = Entry(clientID: clientID, homeAccountID: homeAccountID, authorityMap: kept, state: state)
        keysNormalized = keysNormalized && CacheKey.normalized(key) == key
    }

    /// The key of the authority map MSAL writes and reads (`MSIDAccountMetadata URLMapKey`):
    /// `URLMap-` for requests that are not instance aware, the only kind the emulator makes.
    static let urlMapKey = "URLMap-"

    /// `cachedURL:instanceAware:`: the authority a request authority was answered for, unless
    /// the account is signed out.
    func cachedAuthorityURL(forRequest requestURL: String, homeAccountID: String) -> String? {
        guard let entry = entry(for: homeAccountID), entry.state != .signedOut,
              case .object(let map)? = entry.authorityMap[Self.urlMapKey], case .string(let cached)? = map[requestURL]
        else { return nil }
        return cached
    }

    /// `setCachedURL:forRequestURL:instanceAware:`: maps the request authority to the result's
    /// under `URLMap-` and sets the account `signed_in`.
    mutating func setCachedAuthorityURL(_ cachedURL: String, forRequest requestURL: String, homeAccountID: String) {
        let key = key(of: homeAccountID) ?? homeAccountID
        var entry = entries[key] ?? Entry(clientID: clientID, homeAccountID: homeAccountID, authorityMap: [:], state: .signedIn)
        var map: JSONObject = [:]
        if case .object(let existing)? = entry.authorityMap[Self.urlMapKey] { map = existing }
        map[requestURL] = .string(cachedURL)
        entry.authorityMap[Self.urlMapKey] = .object(map)
        entry.state = .signedIn
        entries[key] = entry
        keysNormalized = keysNormalized && CacheKey.normalized(key) == key
    }

    /// The stored JSON: what `CacheJSON.data(fields)` writes (compact, keys sorted), put
    /// together from each entry's JSON as last encoded (``AccountMetadataJSON``). Remembered
    /// with its value, so reading it back in this process does not parse it again.
    func encoded() -> Data {
        let service = Self.layout(clientID: clientID).service
        // Strings and objects only, none of which can fail to encode; the generic form is the fallback.
        let data = (try? AccountMetadataJSON.encode(self, service: service)) ?? CacheJSON.data(fields)
        AccountMetadataMemo.remember(data, value: self, service: service)
        return data
    }

    static func layout(clientID: String) -> ItemLayout {
        ItemLayout(account: account, service: clientID, generic: nil, type: ItemType.accountMetadata)
    }
}

/// The account-metadata item's JSON, put together from pieces `JSONEncoder` writes: each
/// entry's `"<home account ID>":{...}` is encoded once and remembered (per client ID) while the
/// entry stays the same, so rewriting an item of a thousand accounts with one entry new encodes
/// that one entry, not a thousand (about 3.5 ms of every sign-in at a thousand accounts, measured
/// in a load worker, when the whole object went through `JSONEncoder`). The pieces are joined as
/// `JSONEncoder` joins them with `.sortedKeys`: compact, keys in the order of their UTF-8 bytes;
/// a property test holds the result to the bytes `JSONEncoder` writes for the whole object.
enum AccountMetadataJSON {
    /// Clients whose entries are remembered at most; past it, the memory starts afresh.
    static let limit = 16
    private static let remembered = Mutex<[String: [String: (entry: AccountMetadataItem.Entry, json: Data)]]>([:])

    static func encode(_ item: AccountMetadataItem, service: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let known = remembered.withLock { $0[service] ?? [:] }
        var pieces: [String: (entry: AccountMetadataItem.Entry, json: Data)] = [:]
        pieces.reserveCapacity(item.entries.count)
        for (key, entry) in item.entries {
            if let kept = known[key], kept.entry == entry {
                pieces[key] = kept
            } else {
                pieces[key] = (entry, try member(key, try encoder.encode(JSONValue.object(entry.fields)), encoder))
            }
        }
        remembered.withLock { remembered in
            if remembered.count >= limit && remembered[service] == nil { remembered.removeAll() }
            remembered[service] = pieces
        }
        let map = object(pieces.mapValues(\.json))
        var top: [String: Data] = [:]
        for (name, value) in item.principal where name != "client_id" && name != "account_metadata_map" {
            top[name] = try member(name, try encoder.encode(value), encoder)
        }
        top["client_id"] = try member("client_id", try encoder.encode(item.clientID), encoder)
        top["account_metadata_map"] = try member("account_metadata_map", map, encoder)
        return object(top)
    }

    /// `{<member>,<member>...}`, the members (`"<key>":<value>`, by key) in `JSONEncoder`'s
    /// `.sortedKeys` order: by the keys' UTF-8 bytes.
    private static func object(_ members: [String: Data]) -> Data {
        var object = Data()
        object.reserveCapacity(members.values.reduce(2) { $0 + $1.count + 1 })
        object.append(UInt8(ascii: "{"))
        for (index, key) in members.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { object.append(UInt8(ascii: ",")) }
            object.append(members[key] ?? Data())
        }
        object.append(UInt8(ascii: "}"))
        return object
    }

    /// `"<key>":<value>`, the key encoded as `JSONEncoder` encodes a string.
    private static func member(_ key: String, _ value: Data, _ encoder: JSONEncoder) throws -> Data {
        var member = try encoder.encode(key)
        member.append(UInt8(ascii: ":"))
        member.append(value)
        return member
    }
}

/// The account-metadata values this process last parsed or wrote, one per client ID, with the
/// bytes they were read from or written as. Every token response reads the client's item and
/// writes it back; in a process that wrote it last, the bytes it reads are the ones it wrote,
/// and parsing them again (a JSON object with an entry per account: tens of milliseconds at a
/// few thousand accounts) would only give the value it holds. Bytes that differ in any way
/// (another app wrote since) are parsed as usual.
enum AccountMetadataMemo {
    /// Clients remembered at most; past it the memo starts afresh.
    static let limit = 16
    private static let remembered = Mutex<[String: (data: Data, value: AccountMetadataItem)]>([:])

    /// The value `data` holds, if it is the last seen for the item's service (the client ID).
    static func value(of data: Data, service: String) -> AccountMetadataItem? {
        remembered.withLock { remembered in
            guard let last = remembered[service], last.data == data else { return nil }
            return last.value
        }
    }

    static func remember(_ data: Data, value: AccountMetadataItem, service: String) {
        remembered.withLock { remembered in
            if remembered.count >= limit && remembered[service] == nil { remembered.removeAll() }
            remembered[service] = (data, value)
        }
    }
}

/// One client's sign-in state for one account. `signedOut` hides the account from that client's
/// account list even while sibling apps' family tokens would show it, and makes its silent
/// acquisition ask for interaction; `signedIn` lists it even without a refresh token.
public enum SignInState: String, Sendable, Hashable {
    /// `signed_in`: a token response for the account was saved.
    case signedIn = "signed_in"
    /// `signed_out`: the client removed the account.
    case signedOut = "signed_out"
    /// `unknown`: as good as no entry.
    case unknown
}

/// The per-account sign-in record earlier versions of this emulator wrote (type 4001, one item
/// per client and account), read so that a cache they wrote is never misread: a state found
/// only there still counts, and the first write of the client's account metadata for that
/// account folds it in and deletes the record.
struct LegacySignInRecord: Sendable, Hashable {
    var clientID: String
    var homeAccountID: String
    var environment: String
    var state: SignInState

    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        clientID = try fields.string("client_id")
        homeAccountID = try fields.string("home_account_id")
        environment = try fields.string("environment")
        let state = try fields.string("sign_in_state")
        guard let parsed = SignInState(rawValue: state) else {
            throw FieldError("'sign_in_state' is '\(DisplayText(state))'; expected signed_in or signed_out")
        }
        self.state = parsed
    }
}
