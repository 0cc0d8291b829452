import Foundation
import KeychainStorage
import SharedKeychain

/// One app's view of an MSAL token cache kept in a shared keychain group, laid out item for
/// item as Microsoft's iOS SDKs lay it out, with an emulated token issuer in place of the
/// network.
///
/// Every app of the group reads and writes the same items, so the SDKs' sharing behaviour
/// follows: single sign-on through family refresh tokens, an account list built from other
/// apps' tokens, and removals and wipes that take effect in every app.
///
/// Writes are update-then-add, as the SDKs do them; silent acquisition and the account list
/// read with the SDK's own queries, in its order, filtered in memory as it filters them. The
/// value is immutable and `Sendable`: share it between tasks freely.
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
    /// The keychain calls beneath every layer (`MSIDKeychainTokenCache`).
    let keychainCache: KeychainTokenCache
    /// Credentials, accounts and app metadata by key (`MSIDAccountCredentialCache`).
    let credentialCache: AccountCredentialCache
    /// This client's account metadata and sign-in states (`MSIDAccountMetadataCacheAccessor`).
    let accountMetadata: AccountMetadataCacheAccessor
    /// MSAL's items (`MSIDDefaultTokenCacheAccessor`).
    let defaultAccessor: DefaultTokenCacheAccessor
    /// ADAL's legacy items (`MSIDLegacyTokenCacheAccessor`).
    let legacyAccessor: LegacyTokenCacheAccessor

    /// - Parameters:
    ///   - keychain: the app's keychain; it must be entitled to the sharing group, or every
    ///     operation fails with errSecMissingEntitlement.
    ///   - configuration: the app's MSAL settings: client ID, sharing group, family.
    ///   - issuer: the emulated token endpoint.
    ///   - now: the clock for token lifetimes (injectable for tests and `--now`).
    /// - Throws: ``TokenCacheError/invalidArgument(_:)`` for an unusable configuration;
    ///   ``TokenCacheError/keychain(_:)`` when MSAL's team-ID probe, which the first cache of an
    ///   app in a process makes, cannot read or add its item (see the fidelity page).
    public init(
        keychain: Keychain,
        configuration: TokenCacheConfiguration,
        issuer: EmulatedIssuer = EmulatedIssuer(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(TokenCacheError) {
        if let problem = configuration.problem { throw .invalidArgument("invalid token cache configuration: \(problem)") }
        // MSIDKeychainTokenCache initWithGroup asks MSIDKeychainUtil for the team ID before
        // anything else: the probe, once per process and app.
        let keychainCache = try KeychainTokenCache(keychain: keychain, configuration: configuration, now: now)
        self.keychain = keychain
        self.configuration = configuration
        self.issuer = issuer
        self.accessGroup = keychainCache.accessGroup
        self.now = now
        self.keychainCache = keychainCache
        credentialCache = AccountCredentialCache(keychainCache: keychainCache, singleFRTFlight: configuration.singleFRTFlight)
        accountMetadata = AccountMetadataCacheAccessor(keychainCache: keychainCache, clientID: configuration.clientID)
        legacyAccessor = LegacyTokenCacheAccessor(keychainCache: keychainCache, clientID: configuration.clientID, environment: configuration.environment)
        defaultAccessor = DefaultTokenCacheAccessor(
            credentialCache: credentialCache, accountMetadata: accountMetadata, otherAccessor: legacyAccessor,
            clientID: configuration.clientID, environment: configuration.environment, sdk: configuration.sdk, familyID: configuration.familyID,
            environmentAliases: configuration.environmentAliases)
    }

    var clientID: String { configuration.clientID }
    var environment: String { configuration.environment }
    /// The family the server puts this app in (its configuration, unless the issuer keeps the
    /// client out of every family).
    var serverFamilyID: String? { issuer.familyID(ofClient: clientID, configured: configuration.familyID) }
}

/// How one app uses the shared cache: its client ID, the keychain group, the authority and,
/// when the server treats the app as part of a family of first-party apps (FOCI), the family.
public struct TokenCacheConfiguration: Sendable, Hashable {
    /// MSAL's default keychain sharing group on iOS.
    public static let defaultSharingGroup = "com.microsoft.adalcache"
    /// The public cloud's authority host. Items are written under its cloud's
    /// `preferred_cache` (`login.windows.net`), as instance discovery answers.
    public static let defaultAuthorityHost = "login.microsoftonline.com"
    /// The tenant of MSAL's default authority (`https://login.microsoftonline.com/common`).
    public static let defaultAuthorityTenant = "common"

    /// The app's client (application) ID. Apps of a suite often share one.
    public var clientID: String
    /// The group without the team prefix (`com.microsoft.adalcache`); the team of the app is
    /// put in front, as MSAL does. A group that already starts with the app's team ID is used
    /// as is.
    public var keychainSharingGroup: String
    /// The authority host, for example `login.microsoftonline.com`: a host of a cloud
    /// ``InstanceDiscovery`` knows.
    public var authorityHost: String
    /// The authority's tenant (`common`, `organizations`, `consumers`, a tenant ID or a domain
    /// name): the request authority of silent acquisitions, whose account-metadata authority map
    /// entry they read.
    public var authorityTenant: String = TokenCacheConfiguration.defaultAuthorityTenant
    /// The family the emulated server puts the app in (`"1"` for Microsoft's), or nil.
    public var familyID: String?
    /// The class the cache's new items get (`kSecAttrAccessible`). MSAL and ADAL add every item
    /// `afterFirstUnlockThisDeviceOnly` (IdentityCore `MSIDKeychainTokenCache.m` `saveData`), so
    /// their reads fail only between a reboot and the first unlock; another class shows what an
    /// app that chose its own would meet.
    public var accessibility: Accessibility
    /// Where each keychain call the cache makes is reported, in order (`--trace`), or nil.
    public var trace: KeychainCallTrace?
    /// MSAL's `sfrt_v2` flight for this app, or nil: `on` switches the group to single-FRT mode
    /// through its shared `useSingleFRT` item, `off` back (``SingleFRTFlight``).
    public var singleFRTFlight: SingleFRTFlight?
    /// The SDK the app is built with: MSAL (the default), or ADAL, whose sign-ins write ADAL's
    /// legacy items beside MSAL's (``TokenCacheSDK``).
    public var sdk: TokenCacheSDK
    /// Where the items a read skips (their value cannot be decoded) are reported, each once,
    /// or nil. The SDK skips them too; this is how a user learns which they are.
    public var skippedItems: SkippedItemReport?

    /// - Parameters: see the properties.
    public init(
        clientID: String,
        keychainSharingGroup: String = TokenCacheConfiguration.defaultSharingGroup,
        authorityHost: String = TokenCacheConfiguration.defaultAuthorityHost,
        familyID: String? = nil,
        accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly,
        trace: KeychainCallTrace? = nil,
        sdk: TokenCacheSDK = .msal
    ) {
        self.sdk = sdk
        self.clientID = clientID
        self.keychainSharingGroup = keychainSharingGroup
        self.authorityHost = authorityHost
        self.familyID = familyID
        self.accessibility = accessibility
        self.trace = trace
    }

    /// The configured authority, `https://<authorityHost>/<authorityTenant>`.
    public var authority: Authority {
        get throws(AuthorityError) { try Authority(host: authorityHost, tenant: authorityTenant) }
    }

    /// The cache's `environment`, which every item is written under: the `preferred_cache` of
    /// the authority host's cloud (`cacheEnvironmentWithContext`), `login.windows.net` for the
    /// public cloud.
    public var environment: String { InstanceDiscovery.cloudOrOwn(for: authorityHost).preferredCache }

    /// The environments lookups match (`defaultCacheEnvironmentAliases`): the preferred cache,
    /// the host as configured, then the cloud's other aliases.
    public var environmentAliases: EnvironmentAliases {
        InstanceDiscovery.cloudOrOwn(for: authorityHost).cacheAliases(for: CacheKey.normalized(authorityHost))
    }

    /// The full access group for `app`: `<TEAMID>.<keychainSharingGroup>`.
    public func accessGroup(for app: AppIdentity) -> String {
        let group = keychainSharingGroup.trimmingCharacters(in: .whitespaces)
        if let parsed = try? AccessGroup(group), parsed.teamID == app.teamID { return group }
        return "\(app.teamID.rawValue).\(group)"
    }

    /// Why the configuration is unusable, or nil.
    var problem: String? {
        if CacheKey.normalized(clientID).isEmpty { return "the client ID is empty" }
        if CacheKey.normalized(keychainSharingGroup).isEmpty { return "the keychain sharing group is empty" }
        if CacheKey.normalized(authorityHost).isEmpty { return "the authority host is empty" }
        do { _ = try authority } catch { return error.message }
        if let familyID, CacheKey.normalized(familyID).isEmpty { return "the family ID is empty; use nil for an app outside any family" }
        return nil
    }
}
