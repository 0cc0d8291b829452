import Foundation

/// What the emulated token endpoint returns, already shaped as the cache items the SDK writes.
struct TokenResponse: Sendable {
    let user: IssuedUser
    let clientID: String
    let environment: String
    /// The family the server says the client belongs to (`foci`), or nil.
    let familyID: String?
    let scopes: [String]
    let accessToken: String
    let refreshToken: String
    let idToken: String
    let issuedAt: Date
    let expiresOn: Date
    let extendedExpiresOn: Date

    var account: CachedAccount { user.account(environment: environment) }

    var accessTokenCredential: Credential {
        Credential(
            type: .accessToken, secret: accessToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, realm: user.tenantID, target: scopes.joined(separator: " "),
            cachedAt: issuedAt, expiresOn: expiresOn, extendedExpiresOn: extendedExpiresOn)
    }

    /// The refresh token; stored once under the client and, in a family, once more under the
    /// family ID (with the same JSON: `client_id` is this client, whoever wrote it last).
    var refreshTokenCredential: Credential {
        Credential(
            type: .refreshToken, secret: refreshToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, cachedAt: issuedAt, familyID: familyID)
    }

    var idTokenCredential: Credential {
        Credential(
            type: .idToken, secret: idToken, homeAccountID: user.homeAccountID, environment: environment,
            clientID: clientID, realm: user.tenantID, cachedAt: issuedAt)
    }

    /// Without a family the SDK records an empty `family_id`: the server said "no family".
    var appMetadata: AppMetadata {
        AppMetadata(clientID: clientID, environment: environment, familyID: familyID ?? "")
    }
}
