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
