import SharedKeychain

/// What the Intune App SDK reads of an app's `IntuneMAMSettings` (a dictionary in its
/// Info.plist): where it looks for the user's token. The SDK reads the token MSAL (or ADAL)
/// cached from `com.microsoft.adalcache`, or from the group `ADALCacheKeychainGroupOverride`
/// names (ms-intune-app-sdk-ios #504, #39). The dictionary's other keys (`ADALClientId`,
/// `ADALRedirectUri`, `ADALAuthority`, ...) are accepted and not read.
public struct IntuneSettings: Sendable, Hashable {
    /// The Info.plist key of the SDK's settings dictionary.
    public static let settingsKey = "IntuneMAMSettings"
    /// The key naming the keychain group the SDK reads the token cache from.
    public static let cacheGroupOverrideKey = "ADALCacheKeychainGroupOverride"
    /// The group the SDK reads when no override is set.
    public static let defaultCacheGroup = "com.microsoft.adalcache"

    /// `ADALCacheKeychainGroupOverride` as written, or nil when the app sets none.
    public let cacheGroupOverride: String?

    /// Settings given in code; nil `cacheGroupOverride` reads the default group.
    public init(cacheGroupOverride: String? = nil) {
        self.cacheGroupOverride = cacheGroupOverride
    }

    /// The group the SDK reads, as written (`com.microsoft.adalcache` unless overridden).
    public var cacheGroupName: String { cacheGroupOverride ?? Self.defaultCacheGroup }

    /// The group the SDK reads for an app of `team`. A name that starts with the team ID is used
    /// as is, any other gets the team in front: the rule of IdentityCore's
    /// `MSIDKeychainTokenCache initWithGroup:`, through which the token cache is read.
    ///
    /// - Throws: ``SharedKeychain/AccessGroupError`` when the name makes no access group.
    public func cacheGroup(team: TeamIdentifier) throws(AccessGroupError) -> AccessGroup {
        let name = cacheGroupName.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("\(team.rawValue).") { return try AccessGroup(name) }
        return try AccessGroup(teamID: team, identifier: name)
    }

    /// Reads the `IntuneMAMSettings` dictionary; only the override is read, and it must be text.
    init(_ field: DocumentField) throws(SuiteManifestError) {
        let settings = try field.dictionary()
        cacheGroupOverride = try settings.optional(Self.cacheGroupOverrideKey)?.nonEmptyString()
    }

    /// The dictionary as a property list holds it.
    var propertyList: [String: Any] {
        cacheGroupOverride.map { [Self.cacheGroupOverrideKey: $0] } ?? [:]
    }
}
