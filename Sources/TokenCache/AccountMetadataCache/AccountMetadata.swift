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
    }

    var clientID: String
    /// By home account ID as written.
    var entries: [String: Entry]
    /// The single-account API's principal fields, kept as read.
    var principal: JSONObject

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
            guard case .object(let entry) = value else { throw FieldError("'account_metadata_map.\(homeAccountID)' is not an object") }
            let entryFields = FieldReader(object: entry)
            let stateName = try entryFields.optionalString("sign_in_state") ?? SignInState.unknown.rawValue
            guard let state = SignInState(rawValue: stateName) else {
                throw FieldError("'sign_in_state' of \(homeAccountID) is '\(stateName)'; expected signed_in, signed_out or unknown")
            }
            var authorityMap: JSONObject = [:]
            if case .object(let map)? = entry["athority_map"] { authorityMap = map }
            entries[homeAccountID] = Entry(
                clientID: try entryFields.optionalString("client_id") ?? clientID,
                homeAccountID: try entryFields.optionalString("home_account_id") ?? homeAccountID,
                authorityMap: authorityMap, state: state)
        }
    }

    var fields: JSONObject {
        var object = principal
        object["client_id"] = .string(clientID)
        var map: JSONObject = [:]
        for (key, entry) in entries {
            map[key] = .object([
                "client_id": .string(entry.clientID), "home_account_id": .string(entry.homeAccountID),
                "athority_map": .object(entry.authorityMap), "sign_in_state": .string(entry.state.rawValue),
            ])
        }
        object["account_metadata_map"] = .object(map)
        return object
    }

    /// The entry of `homeAccountID` (compared case-insensitively, as keys are normalized elsewhere).
    func entry(for homeAccountID: String) -> Entry? {
        if let exact = entries[homeAccountID] { return exact }
        let wanted = CacheKey.normalized(homeAccountID)
        return entries.first { CacheKey.normalized($0.key) == wanted }?.value
    }

    /// `updateSignInState` (`MSIDAccountMetadataCacheAccessor.m`): `signed_out` starts a fresh
    /// entry (its authority map emptied); another state keeps the entry's authority map.
    mutating func setState(_ state: SignInState, for homeAccountID: String) {
        let key = entries.keys.first { CacheKey.normalized($0) == CacheKey.normalized(homeAccountID) } ?? homeAccountID
        let kept = state == .signedOut ? [:] : (entries[key]?.authorityMap ?? [:])
        entries[key] = Entry(clientID: clientID, homeAccountID: homeAccountID, authorityMap: kept, state: state)
    }

    static func layout(clientID: String) -> ItemLayout {
        ItemLayout(account: account, service: clientID, generic: nil, type: ItemType.accountMetadata)
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
            throw FieldError("'sign_in_state' is '\(state)'; expected signed_in or signed_out")
        }
        self.state = parsed
    }
}
