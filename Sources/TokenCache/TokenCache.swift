import Foundation
import SharedKeychain

/// One app's view of an MSAL token cache kept in a shared keychain group, laid out item for
/// item as Microsoft's iOS SDKs lay it out, with an emulated token issuer in place of the
/// network.
///
/// Every app of the group reads and writes the same items, so the SDKs' sharing behaviour
/// follows: single sign-on through family refresh tokens, an account list built from other
/// apps' tokens, and removals and wipes that take effect in every app.
///
/// Writes are update-then-add, as the SDKs do them; reads are partial queries (by item type,
/// or by account) filtered in memory, so they cost what the items they need cost, not what the
/// group holds. The value is immutable and `Sendable`: share it between tasks freely.
public struct TokenCache: Sendable {
    /// The scopes a sign-in requests when none are given.
    public static let defaultScopes = ["user.read"]
    /// The family MSAL assumes for an app it has no app metadata for yet.
    public static let defaultFamilyID = "1"
    /// The margin under which an access token counts as expired, as in MSAL (5 minutes).
    public static let expirationMargin: TimeInterval = 300

    /// The app's keychain: its identity decides which groups it reaches.
    public let keychain: Keychain
    /// The app's MSAL configuration.
    public let configuration: TokenCacheConfiguration
    /// The emulated token endpoint.
    public let issuer: EmulatedIssuer
    /// The full access group, `<TEAMID>.com.microsoft.adalcache` by default.
    public let accessGroup: String
    let now: @Sendable () -> Date

    /// - Parameters:
    ///   - keychain: the app's keychain; it must be entitled to the sharing group, or every
    ///     operation fails with errSecMissingEntitlement.
    ///   - configuration: the app's MSAL settings: client ID, sharing group, family.
    ///   - issuer: the emulated token endpoint.
    ///   - now: the clock for token lifetimes (injectable for tests and `--now`).
    /// - Throws: ``TokenCacheError/invalidArgument(_:)`` for an unusable configuration.
    public init(
        keychain: Keychain,
        configuration: TokenCacheConfiguration,
        issuer: EmulatedIssuer = EmulatedIssuer(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(TokenCacheError) {
        if let problem = configuration.problem { throw .invalidArgument("invalid token cache configuration: \(problem)") }
        self.keychain = keychain
        self.configuration = configuration
        self.issuer = issuer
        self.accessGroup = configuration.accessGroup(for: keychain.app)
        self.now = now
    }

    var clientID: String { configuration.clientID }
    var environment: String { configuration.environment }

    /// The app's family as MSAL decides it when reading: from the app metadata when the cache
    /// has it, else the default family.
    func familyForLookup(in snapshot: CacheSnapshot) -> String? {
        guard let metadata = snapshot.appMetadata(clientID: clientID, environment: environment) else { return Self.defaultFamilyID }
        return metadata.family
    }
}
