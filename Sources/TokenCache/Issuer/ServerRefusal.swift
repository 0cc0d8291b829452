/// The emulated token endpoint's `invalid_grant` answer to a refresh token it will not redeem.
struct ServerRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The `suberror` the server sends beside `invalid_grant`.
    enum SubError: String, Sendable, Hashable {
        /// A family refresh token from a client outside that family (IdentityCore
        /// `MSIDServerErrorClientMismatch`): MSAL then records the client as in no family.
        case clientMismatch = "client_mismatch"
    }

    /// The OAuth error: always `invalid_grant` here.
    let error = "invalid_grant"
    /// The suberror, when the server sends one.
    let subError: SubError?
    /// Why, for a person.
    let reason: String

    init(subError: SubError?, reason: String) {
        self.subError = subError
        self.reason = reason
    }

    /// `invalid_grant (client_mismatch): <why>`.
    var description: String {
        "\(error)\(subError.map { " (\($0.rawValue))" } ?? ""): \(reason)"
    }
}
