/// The kinds of credential the cache holds, with their schema names and item types.
enum CredentialType: String, Sendable, Hashable, CaseIterable {
    case accessToken = "AccessToken"
    case refreshToken = "RefreshToken"
    case idToken = "IdToken"

    /// `kSecAttrType`: 2000 + {AccessToken 1, RefreshToken 2, IDToken 3}. A family refresh
    /// token is stored as a refresh token (2002).
    var itemType: Int {
        switch self {
        case .accessToken: 2001
        case .refreshToken: 2002
        case .idToken: 2003
        }
    }

    init?(itemType: Int) {
        guard let match = Self.allCases.first(where: { $0.itemType == itemType }) else { return nil }
        self = match
    }

    /// The name of the section holding this kind in the serialized cache.
    var section: CacheSection {
        switch self {
        case .accessToken: .accessToken
        case .refreshToken: .refreshToken
        case .idToken: .idToken
        }
    }
}
