/// What the cache remembers about one client: whether the server put it in a family.
struct AppMetadata: Sendable, Hashable {
    static let managedKeys: Set<String> = ["client_id", "environment", "family_id"]

    var clientID: String
    var environment: String
    /// As written, empty string included; ``family`` is the usable form.
    var familyID: String?

    init(clientID: String, environment: String, familyID: String?) {
        self.clientID = clientID
        self.environment = environment
        self.familyID = familyID
    }

    init(object: JSONObject) throws(FieldError) {
        let fields = FieldReader(object: object)
        clientID = try fields.string("client_id")
        environment = try fields.string("environment")
        familyID = try fields.optionalString("family_id")
    }

    var family: String? { familyID.flatMap { $0.isEmpty ? nil : $0 } }

    var fields: JSONObject {
        var object: JSONObject = ["client_id": .string(clientID), "environment": .string(environment)]
        if let familyID { object["family_id"] = .string(familyID) }
        return object
    }

    var layout: ItemLayout { .appMetadata(environment: environment, clientID: clientID, familyID: family) }

    /// `appmetadata-<environment>-<client_id>`, lowercased.
    var exportKey: String { CacheKey.normalized("appmetadata-\(environment)-\(clientID)") }
}

/// The stored sign-in state of one client for one account (the emulator's own layout; see
/// ``ItemLayout``).
struct SignInRecord: Sendable, Hashable {
    static let managedKeys: Set<String> = ["client_id", "home_account_id", "environment", "sign_in_state"]

    var clientID: String
    var homeAccountID: String
    var environment: String
    var state: SignInState

    init(clientID: String, homeAccountID: String, environment: String, state: SignInState) {
        self.clientID = clientID
        self.homeAccountID = homeAccountID
        self.environment = environment
        self.state = state
    }

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

    var fields: JSONObject {
        [
            "client_id": .string(clientID), "home_account_id": .string(homeAccountID),
            "environment": .string(environment), "sign_in_state": .string(state.rawValue),
        ]
    }

    var layout: ItemLayout { .signInState(homeAccountID: homeAccountID, environment: environment, clientID: clientID) }
}

/// One client's sign-in state for one account. `signedOut` hides the account from that client's
/// account list even while sibling apps' family tokens would show it.
enum SignInState: String, Sendable, Hashable {
    case signedIn = "signed_in"
    case signedOut = "signed_out"
}
