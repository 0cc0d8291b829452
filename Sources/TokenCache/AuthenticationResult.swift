import Foundation

/// What a sign-in or a silent acquisition returns. Its description masks every token.
public struct AuthenticationResult: Sendable, Hashable, CustomStringConvertible {
    /// The access token; printing it shows only a masked form.
    public let accessToken: TokenSecret
    /// The ID token (an emulated, unsigned JWT), when the cache holds one for the account.
    public let idToken: TokenSecret?
    /// The scopes the access token is valid for.
    public let scopes: [String]
    /// When the access token expires.
    public let expiresOn: Date
    /// The signed-in account.
    public let account: CachedAccount
    /// The tenant the token was issued in.
    public let tenantID: String
    /// Which path produced the token.
    public let source: TokenSource

    /// - Parameters: the token and what it was issued for.
    public init(
        accessToken: TokenSecret, idToken: TokenSecret?, scopes: [String], expiresOn: Date,
        account: CachedAccount, tenantID: String, source: TokenSource
    ) {
        self.accessToken = accessToken
        self.idToken = idToken
        self.scopes = scopes
        self.expiresOn = expiresOn
        self.account = account
        self.tenantID = tenantID
        self.source = source
    }

    /// One line for people, tokens masked.
    public var description: String {
        "\(account.username): access token \(accessToken.masked) for '\(scopes.joined(separator: " "))', expires \(expiresOn.formatted(.iso8601)), from \(source)"
    }
}
