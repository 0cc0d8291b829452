/// The top-level sections of the serialized cache (MSAL Python, Java and .NET use the same).
enum CacheSection: String, Sendable, CaseIterable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"
    case account = "Account"
    case appMetadata = "AppMetadata"
}
