/// The rules `suite check` applies, from the seeds' instructions for sharing sign-in across a
/// suite of iOS apps. The raw values are the stable IDs reports print.
public enum CheckRule: String, Sendable, Codable, CaseIterable {
    // Registration with the identity platform.
    case clientIDShared = "client-id-shared"
    case redirectURIDistinct = "redirect-uri-distinct"
    case redirectURIRegistered = "redirect-uri-registered"

    // The redirect URI's form and its scheme's registration.
    case redirectURIForm = "redirect-uri-form"
    case redirectURILegacy = "redirect-uri-legacy"
    case redirectURIUniversalLink = "redirect-uri-universal-link"
    case redirectURIOtherApp = "redirect-uri-other-app"
    case redirectURIBundleMismatch = "redirect-uri-bundle-mismatch"
    case redirectSchemeRegistered = "redirect-scheme-registered"
    case urlSchemeUnique = "url-scheme-unique"
    case universalLinkNotAScheme = "universal-link-not-a-scheme"
    case infoPlistBundleID = "info-plist-bundle-id"

    // The broker.
    case brokerQuerySchemes = "broker-query-schemes"
    case certificateAuthBroker = "certificate-auth-broker"
    case certificateAuthRedirect = "certificate-auth-redirect"

    // Keychain sharing.
    case teamShared = "team-shared"
    case keychainGroupShared = "keychain-group-shared"
    case entitlementsValid = "entitlements-valid"
    case keychainGroupEntitled = "keychain-group-entitled"
    case keychainFirstGroup = "keychain-first-group"
    case sharedCacheWipe = "shared-cache-wipe"

    /// What the rule asks for, in one line.
    public var summary: String {
        switch self {
        case .clientIDShared: "all apps of a suite use one client ID (application ID)"
        case .redirectURIDistinct: "each app has its own redirect URI"
        case .redirectURIRegistered: "the redirect URIs (and certificate-auth URIs) are registered for the client ID"
        case .redirectURIForm: "the redirect URI is <scheme>://<host>, ideally msauth.<bundle id>://auth"
        case .redirectURILegacy: "the legacy ADAL form <scheme>://<bundle id> still works with MSAL"
        case .redirectURIUniversalLink: "an https universal link needs Associated Domains, not a URL scheme"
        case .redirectURIOtherApp: "the redirect URI names this app's bundle ID, not another suite app's"
        case .redirectURIBundleMismatch: "the bundle ID in msauth.<bundle id> is the app's own"
        case .redirectSchemeRegistered: "the redirect URI's scheme is in Info.plist CFBundleURLTypes > CFBundleURLSchemes"
        case .urlSchemeUnique: "no other suite app registers the redirect URI's scheme"
        case .universalLinkNotAScheme: "https is not declared in CFBundleURLSchemes"
        case .infoPlistBundleID: "the Info.plist's CFBundleIdentifier is the app's bundle ID"
        case .brokerQuerySchemes: "apps using the broker list msauth and msauthv2 in LSApplicationQueriesSchemes"
        case .certificateAuthBroker: "certificate-based authentication goes through the broker"
        case .certificateAuthRedirect: "certificate-based auth declares msauth://code/<url-encoded redirect URI>"
        case .teamShared: "all apps are signed by one team"
        case .keychainGroupShared: "all apps use one keychain sharing group"
        case .entitlementsValid: "keychain-access-groups entries are well formed and the team's own"
        case .keychainGroupEntitled: "the keychain sharing group is in the app's keychain-access-groups"
        case .keychainFirstGroup: "the shared group is not the app's first (default) keychain group"
        case .sharedCacheWipe: "the apps that may wipe the shared cache are marked privileged"
        }
    }
}
