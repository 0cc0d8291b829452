import Foundation
import KeychainStorage
import SharedKeychain

/// How one app uses the shared cache: its client ID, the keychain group, the authority and,
/// when the server treats the app as part of a family of first-party apps (FOCI), the family.
public struct TokenCacheConfiguration: Sendable, Hashable {
    /// MSAL's default keychain sharing group on iOS.
    public static let defaultSharingGroup = "com.microsoft.adalcache"
    /// The public cloud's authority host, which is the cache's `environment`.
    public static let defaultAuthorityHost = "login.microsoftonline.com"

    /// The app's client (application) ID. Apps of a suite often share one.
    public var clientID: String
    /// The group without the team prefix (`com.microsoft.adalcache`); the team of the app is
    /// put in front, as MSAL does. A group that already starts with the app's team ID is used
    /// as is.
    public var keychainSharingGroup: String
    /// The authority host, for example `login.microsoftonline.com`.
    public var authorityHost: String
    /// The family the emulated server puts the app in (`"1"` for Microsoft's), or nil.
    public var familyID: String?
    /// The class the cache's new items get (`kSecAttrAccessible`). MSAL leaves Apple's default,
    /// `whenUnlocked`, so a background refresh on a locked device fails; `afterFirstUnlock`
    /// lets it run once the device was unlocked after its boot.
    public var accessibility: Accessibility

    /// - Parameters: see the properties.
    public init(
        clientID: String,
        keychainSharingGroup: String = TokenCacheConfiguration.defaultSharingGroup,
        authorityHost: String = TokenCacheConfiguration.defaultAuthorityHost,
        familyID: String? = nil,
        accessibility: Accessibility = .whenUnlocked
    ) {
        self.clientID = clientID
        self.keychainSharingGroup = keychainSharingGroup
        self.authorityHost = authorityHost
        self.familyID = familyID
        self.accessibility = accessibility
    }

    /// The cache's `environment`: the authority host, trimmed and lowercased.
    public var environment: String { CacheKey.normalized(authorityHost) }

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
        if environment.isEmpty { return "the authority host is empty" }
        if let familyID, CacheKey.normalized(familyID).isEmpty { return "the family ID is empty; use nil for an app outside any family" }
        return nil
    }
}
