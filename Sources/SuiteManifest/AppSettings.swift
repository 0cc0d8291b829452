import Foundation
import TokenCache

/// What a suite manifest gives an app beyond its identity: how it signs in (SDK, client ID,
/// redirect URI, family, broker, certificate-based auth), which keychain group its cache uses,
/// and whether it is privileged. A suite app has them from its entry (``SuiteApp/settings``);
/// an app installed on a device keeps them (`InstalledApp.settings` in `Device`), so a command
/// acting as it by bundle ID alone acts as its manifest says.
public struct AppSettings: Sendable, Hashable {
    /// A display name (`Contoso Mail`).
    public var name: String?
    /// The application (client) ID.
    public var clientID: String
    /// The redirect URI the app passes to the SDK; nil when not known (installed by an older
    /// version).
    public var redirectURI: String?
    /// The keychain sharing group the SDK is told to use, without the team
    /// (`com.microsoft.adalcache`).
    public var sharingGroup: String
    /// The family (FOCI), if any.
    public var familyID: String?
    /// MSAL or ADAL.
    public var sdk: IdentitySDK
    /// Whether the app lets the SDK call the broker; nil when not known.
    public var usesBroker: Bool?
    /// Whether the app supports certificate-based authentication, and the redirect URI it
    /// declares for it.
    public var certificateBasedAuth: Bool
    public var certificateAuthRedirectURI: String?
    /// Whether the app may wipe the shared cache (guarded delete).
    public var privileged: Bool

    /// - Parameters: see the properties.
    public init(
        name: String? = nil, clientID: String, redirectURI: String? = nil, sharingGroup: String = TokenCacheConfiguration.defaultSharingGroup,
        familyID: String? = nil, sdk: IdentitySDK = .msal, usesBroker: Bool? = nil, certificateBasedAuth: Bool = false,
        certificateAuthRedirectURI: String? = nil, privileged: Bool = false
    ) {
        self.name = name
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.sharingGroup = sharingGroup
        self.familyID = familyID
        self.sdk = sdk
        self.usesBroker = usesBroker
        self.certificateBasedAuth = certificateBasedAuth
        self.certificateAuthRedirectURI = certificateAuthRedirectURI
        self.privileged = privileged
    }

    /// The app's token cache as the manifest configures it: client ID, cache group, family and
    /// SDK, in one place for every command, scenario and broker that acts as the app.
    public func tokenCacheConfiguration(authorityHost: String = TokenCacheConfiguration.defaultAuthorityHost) -> TokenCacheConfiguration {
        TokenCacheConfiguration(clientID: clientID, keychainSharingGroup: sharingGroup, authorityHost: authorityHost, familyID: familyID, sdk: sdk)
    }
}

extension SuiteApp {
    /// The app's settings as its manifest entry gives them.
    public var settings: AppSettings {
        AppSettings(
            name: name, clientID: clientID, redirectURI: redirectURI, sharingGroup: keychainGroup.identifier, familyID: familyID, sdk: sdk,
            usesBroker: usesBroker, certificateBasedAuth: certificateBasedAuth, certificateAuthRedirectURI: certificateAuthRedirectURI,
            privileged: privileged)
    }
}
