/// How a token was obtained.
public enum TokenSource: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// An interactive sign-in (the emulated issuer).
    case interactive
    /// A valid access token already in the cache.
    case cache
    /// Redeemed the app's own refresh token.
    case refreshToken = "refresh_token"
    /// Redeemed the family refresh token another app of the family may have written (SSO).
    case familyRefreshToken = "family_refresh_token"
    /// Answered by the broker (Microsoft Authenticator), decrypted with the app's broker key.
    case broker

    /// The raw value (`family_refresh_token`).
    public var description: String { rawValue }
}
