import Foundation
import SharedKeychain
import TokenCache

/// One app of a suite as configured: its identity, its registration with the identity platform
/// (client ID, redirect URI), its keychain sharing, and its property lists.
public struct SuiteApp: Sendable, Hashable {
    /// The keychain sharing group MSAL and ADAL use when the app names none.
    public static let defaultKeychainGroup = "com.microsoft.adalcache"

    /// A display name (`Contoso Mail`), for reports.
    public let name: String?
    /// The app's bundle ID, unique in the suite.
    public let bundleID: String
    /// The team that signs the app.
    public let teamID: TeamIdentifier
    /// The application (client) ID the app signs in with.
    public let clientID: String
    /// The redirect URI the app passes to MSAL.
    public let redirectURI: String
    /// The keychain sharing group the SDK is told to use, with the app's team prefix.
    public let keychainGroup: AccessGroup
    /// The family (FOCI) the app belongs to, if any.
    public let familyID: String?
    /// Whether the app lets the SDK call the broker (Microsoft Authenticator).
    public let usesBroker: Bool
    /// Whether the app supports certificate-based authentication.
    public let certificateBasedAuth: Bool
    /// The `msauth://code/<url-encoded redirect URI>` the app declares for certificate-based auth.
    public let certificateAuthRedirectURI: String?
    /// Whether the app may wipe the shared cache (for the guarded-delete mitigation).
    public let privileged: Bool
    /// The app's `keychain-access-groups` entries, as written.
    public let entitlements: Entitlements
    /// Where the entitlements were read.
    public let entitlementsSource: PlistSource
    /// The app's URL schemes and queried schemes, as written (build variables unresolved).
    public let infoPlist: InfoPlist
    /// Where the Info.plist was read.
    public let infoPlistSource: PlistSource
    /// Where the manifest declares the app (`suite.yaml: apps[0]`).
    public let declaration: ManifestLocation
    /// The SDK the app signs in with (`sdk:` in the manifest): MSAL unless it says `adal`.
    public let sdk: IdentitySDK
    /// The Intune App SDK's settings when the app has that SDK (its Info.plist's
    /// `IntuneMAMSettings`, or `intune: true` in the manifest); nil for an app without Intune.
    public let intune: IntuneSettings?

    /// An app given in code; the sources default to inline at `declaration`, which defaults to
    /// `(in memory)`.
    public init(
        name: String? = nil,
        bundleID: String,
        teamID: TeamIdentifier,
        clientID: String,
        redirectURI: String,
        keychainGroup: AccessGroup,
        familyID: String? = nil,
        usesBroker: Bool = false,
        certificateBasedAuth: Bool = false,
        certificateAuthRedirectURI: String? = nil,
        privileged: Bool = false,
        entitlements: Entitlements,
        entitlementsSource: PlistSource? = nil,
        infoPlist: InfoPlist,
        infoPlistSource: PlistSource? = nil,
        declaration: ManifestLocation = ManifestLocation(file: "(in memory)"),
        sdk: IdentitySDK = .msal,
        intune: IntuneSettings? = nil
    ) {
        self.sdk = sdk
        self.intune = intune ?? infoPlist.intune
        self.name = name
        self.bundleID = bundleID
        self.teamID = teamID
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.keychainGroup = keychainGroup
        self.familyID = familyID
        self.usesBroker = usesBroker
        self.certificateBasedAuth = certificateBasedAuth
        self.certificateAuthRedirectURI = certificateAuthRedirectURI
        self.privileged = privileged
        self.entitlements = entitlements
        self.entitlementsSource = entitlementsSource ?? .inline(declaration.child("entitlements", line: nil))
        self.infoPlist = infoPlist
        self.infoPlistSource = infoPlistSource ?? .inline(declaration.child("info_plist", line: nil))
        self.declaration = declaration.app == nil ? declaration.inApp(bundleID) : declaration
    }

    /// The app as the keychain sees it, its groups from its entitlements.
    ///
    /// - Throws: ``SuiteManifestError/entitlements(_:_:)`` when an entry is malformed or
    ///   belongs to another team.
    public func identity() throws(SuiteManifestError) -> AppIdentity {
        do {
            return try AppIdentity(bundleID: bundleID, teamID: teamID, entitlements: entitlements, source: entitlementsSource.description)
        } catch {
            throw .entitlements(declaration.child("entitlements", line: nil), error)
        }
    }

    /// The group the Intune App SDK reads the user's token from, with the app's team; nil for an
    /// app without Intune.
    ///
    /// - Throws: ``SuiteManifestError/invalidValue(_:value:reason:)`` naming
    ///   `ADALCacheKeychainGroupOverride` when it makes no access group.
    public func intuneCacheGroup() throws(SuiteManifestError) -> AccessGroup? {
        guard let intune else { return nil }
        do { return try intune.cacheGroup(team: teamID) } catch {
            let key = "\(IntuneSettings.settingsKey).\(IntuneSettings.cacheGroupOverrideKey)"
            let location = switch infoPlistSource {
            case .inline(let field): field.child(key, line: nil)
            case .file(let url): ManifestLocation(file: url.path, field: key, app: bundleID)
            }
            throw .invalidValue(location, value: intune.cacheGroupName, reason: "\(error)")
        }
    }

    /// `Contoso Mail (com.contoso.mail)`, or the bundle ID alone.
    public var displayName: String {
        name.map { "\($0) (\(bundleID))" } ?? bundleID
    }
}

/// The Microsoft SDK a suite app signs in with (`sdk:` in the manifest): the token cache's own
/// `TokenCacheSDK`, MSAL unless it says `adal`.
public typealias IdentitySDK = TokenCacheSDK

/// Where an app's entitlements or Info.plist came from: written inline in the manifest, or a
/// property-list file it references.
public enum PlistSource: Sendable, Hashable, CustomStringConvertible {
    /// Inline, at this manifest field.
    case inline(ManifestLocation)
    /// A file, its path resolved against the manifest's directory.
    case file(URL)

    /// `/suite/mail/Info.plist`, or `apps[0].info_plist in /suite/suite.yaml` when inline.
    public var description: String {
        switch self {
        case .inline(let location): "\(location.field) in \(location.file)"
        case .file(let url): url.path
        }
    }
}
