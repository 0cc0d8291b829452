import SharedKeychain
import TokenCache

/// Applies the seeds' rules for sharing sign-in across a suite of iOS apps to a ``Suite``, with
/// nothing but its configuration: what would fail at runtime (MSAL errors, the broker denying
/// tokens, errSecMissingEntitlement) is reported before anything runs.
public struct SuiteChecker {
    let suite: Suite
    private(set) var findings: [Finding] = []

    /// Every rule's findings for `suite`.
    public static func check(_ suite: Suite) -> SuiteReport {
        var checker = SuiteChecker(suite: suite)
        checker.checkRegistration()
        for app in suite.apps {
            checker.checkRedirectURI(of: app)
            checker.checkInfoPlist(of: app)
            checker.checkBroker(of: app)
            checker.checkKeychain(of: app)
            checker.checkIntune(of: app)
        }
        checker.checkSuiteKeychain()
        return SuiteReport(suite: suite, findings: checker.findings)
    }

    init(suite: Suite) {
        self.suite = suite
    }

    mutating func report(_ severity: Severity, _ rule: CheckRule, _ app: SuiteApp?, _ message: String) {
        findings.append(Finding(severity, rule, app: app?.bundleID, message))
    }

    /// The other apps of the suite.
    func others(than app: SuiteApp) -> [SuiteApp] {
        suite.apps.filter { $0.bundleID != app.bundleID }
    }

    /// For a setting every app must share: the value most apps have (on a tie, the first
    /// app's), the apps that have it, and the apps that differ.
    /// `apps` defaults to the whole suite; an empty list has no value, holders or dissenters.
    func consensus(among apps: [SuiteApp]? = nil, _ value: (SuiteApp) -> String) -> (value: String, holders: [SuiteApp], dissenters: [SuiteApp]) {
        let apps = apps ?? suite.apps
        guard let first = apps.first else { return ("", [], []) }
        var counts: [String: Int] = [:]
        for app in apps { counts[value(app), default: 0] += 1 }
        var best = value(first)
        for app in apps where counts[value(app), default: 0] > counts[best, default: 0] {
            best = value(app)
        }
        return (best, apps.filter { value($0) == best }, apps.filter { value($0) != best })
    }
}

extension SuiteApp {
    /// Whether the SDK keeps the app's cache in its own app-ID group (`<team>.<bundle id>`, the
    /// keychain_group set to the bundle ID), which no other app can reach.
    var keepsCacheInItsAppIDGroup: Bool { keychainGroup.identifier.lowercased() == bundleID.lowercased() }
}

extension [SuiteApp] {
    /// `com.contoso.mail, com.contoso.calendar`, for messages.
    var bundleIDList: String { map(\.bundleID).joined(separator: ", ") }
}

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

    // Intune beside the suite.
    case intuneCacheGroup = "intune-cache-group"

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
        case .brokerQuerySchemes: "apps using the broker list msauth (and, with MSAL, msauthv2) in LSApplicationQueriesSchemes"
        case .certificateAuthBroker: "certificate-based authentication goes through the broker"
        case .certificateAuthRedirect: "certificate-based auth declares msauth://code/<url-encoded redirect URI>"
        case .teamShared: "all apps are signed by one team"
        case .keychainGroupShared: "all apps use one keychain sharing group"
        case .entitlementsValid: "keychain-access-groups entries are well formed and the team's own"
        case .keychainGroupEntitled: "the keychain sharing group is in the app's keychain-access-groups"
        case .keychainFirstGroup: "the shared group is not the app's first (default) keychain group"
        case .sharedCacheWipe: "the apps that may wipe the shared cache are marked privileged"
        case .intuneCacheGroup: "an app with Intune keeps its token cache in the group the Intune App SDK reads (ADALCacheKeychainGroupOverride)"
        }
    }
}

extension SuiteChecker {
    /// The app's entitlements must name the suite's sharing group.
    mutating func checkKeychain(of app: SuiteApp) {
        let identity: AppIdentity
        do { identity = try app.identity() } catch {
            // The entitlements error names the file already; the report names the app.
            let cause = if case .entitlements(_, let inner) = error { inner.description } else { error.description }
            report(.error, .entitlementsValid, app, cause)
            return
        }
        let group = app.keychainGroup
        guard identity.isEntitled(to: group.rawValue) else {
            report(.error, .keychainGroupEntitled, app, """
                keychain-access-groups of \(app.entitlementsSource) do not include \(group) (written \
                $(AppIdentifierPrefix)\(group.identifier)): every keychain call the SDK makes for its cache fails with \
                errSecMissingEntitlement (-34018) at runtime
                """)
            return
        }
        // The app's own app-ID group is no shared group, whatever its place in the list.
        if identity.keychainAccessGroups.first == group, suite.apps.count > 1, !app.keepsCacheInItsAppIDGroup {
            report(.warning, .keychainFirstGroup, app, """
                the shared group \(group) is the first keychain-access-groups entry, so it is where the app's own keychain \
                items go when added without a group, where every app of the suite can read and delete them; list \
                $(AppIdentifierPrefix)\(app.bundleID) first
                """)
        }
    }

    /// One team and one sharing group for all apps, and who may wipe the shared cache.
    mutating func checkSuiteKeychain() {
        let teams = consensus { $0.teamID.rawValue }
        for app in teams.dissenters {
            report(.error, .teamShared, app, """
                team \(app.teamID) differs from \(teams.value) used by \(teams.holders.bundleIDList): only apps signed by one \
                team can share a keychain group, so this app cannot reach \(teams.value).\(app.keychainGroup.identifier) and \
                gets errSecMissingEntitlement (-34018) when it tries
                """)
        }
        // An app keeping its cache in its own app-ID group with the broker shares nothing: it
        // gets single sign-on from the broker (issue 21's fix), so only the others must agree.
        let sharing = suite.apps.filter { !($0.keepsCacheInItsAppIDGroup && $0.usesBroker) }
        for app in sharing where app.keepsCacheInItsAppIDGroup && suite.apps.count > 1 {
            report(.error, .keychainGroupShared, app, """
                the app keeps its cache in its own app-ID group '\(DisplayText(app.keychainGroup.identifier))' without the broker, so it \
                gets no single sign-on from the other apps: set broker: true (single sign-on through Microsoft \
                Authenticator), or share one keychain sharing group with them
                """)
        }
        let groups = consensus(among: sharing.filter { !$0.keepsCacheInItsAppIDGroup }) { $0.keychainGroup.identifier }
        for app in groups.dissenters {
            report(.error, .keychainGroupShared, app, """
                keychain group '\(DisplayText(app.keychainGroup.identifier))' differs from '\(DisplayText(groups.value))' used by \
                \(groups.holders.bundleIDList): apps share sign-in only through one keychain sharing group, requested in each \
                app's entitlements and set in each app's SDK configuration (or through the broker, each app in its own \
                app-ID group)
                """)
        }
        // Only the apps in the shared group can wipe it.
        guard groups.holders.count > 1, !groups.holders.contains(where: \.privileged) else { return }
        report(.info, .sharedCacheWipe, nil, """
            \(groups.holders.count) apps share \(groups.value), and any of them can remove users or delete every token in it, \
            including tokens other apps rely on for background work; mark the apps that may do so with privileged: true
            """)
    }
}

extension SuiteChecker {
    /// One client ID for the suite, one redirect URI per app, and (when the manifest lists the
    /// registration's redirect URIs) each app's URIs registered.
    mutating func checkRegistration() {
        // Client IDs are GUIDs; the SDK lowercases them in cache keys.
        let clientIDs = consensus { $0.clientID.lowercased() }
        for app in clientIDs.dissenters {
            report(.error, .clientIDShared, app, """
                client ID '\(DisplayText(app.clientID))' differs from '\(DisplayText(clientIDs.holders[0].clientID))' used by \(clientIDs.holders.bundleIDList): \
                all apps of a suite must use the same client ID (application ID) for the identity platform to share \
                tokens across them; the apps are told apart by their redirect URIs
                """)
        }

        for app in suite.apps {
            let sharing = others(than: app).filter { $0.redirectURI.lowercased() == app.redirectURI.lowercased() }
            // The app whose bundle ID the shared URI names keeps it; the others copied it.
            if !sharing.isEmpty, !ownsRedirectURI(app) || sharing.contains(where: ownsRedirectURI) {
                report(.error, .redirectURIDistinct, app, """
                    redirect URI '\(DisplayText(app.redirectURI))' is also used by \(sharing.bundleIDList): each app of a suite needs its own \
                    redirect URI, since apps sharing one client ID are identified by it; use \(RedirectURI.msalDefault(bundleID: app.bundleID))
                    """)
            }
        }

        guard let registered = suite.registeredRedirectURIs else { return }
        for app in suite.apps {
            if !registered.contains(app.redirectURI) {
                report(.error, .redirectURIRegistered, app, """
                    redirect URI '\(DisplayText(app.redirectURI))' is not among the registered_redirect_uris of client ID '\(DisplayText(app.clientID))': \
                    add it to the app registration, or sign-in fails because the identity platform looks the app up by its redirect URI
                    """)
            }
            let certificateURI = RedirectURI.certificateAuth(for: app.redirectURI)
            if app.certificateBasedAuth, !registered.contains(certificateURI) {
                report(.error, .redirectURIRegistered, app, """
                    certificate-based authentication needs '\(DisplayText(certificateURI))' registered in the portal as well as in the app; \
                    it is not among the registered_redirect_uris
                    """)
            }
        }
    }

    /// Whether the redirect URI names the app's own bundle ID, as `msauth.<bundle id>://auth`
    /// or the legacy `<scheme>://<bundle id>` do.
    func ownsRedirectURI(_ app: SuiteApp) -> Bool {
        guard let uri = RedirectURI(app.redirectURI) else { return false }
        return (uri.msalSchemeBundleID ?? uri.host).lowercased() == app.bundleID.lowercased()
    }
}

extension SuiteChecker {
    /// The schemes the broker needs to be queryable, and certificate-based authentication's
    /// requirements.
    mutating func checkBroker(of app: SuiteApp) {
        if app.usesBroker {
            let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
            let missing = RedirectURI.brokerSchemes(for: app.sdk).filter { !plist.queries(scheme: $0) }
            if !missing.isEmpty {
                report(.error, .brokerQuerySchemes, app, """
                    LSApplicationQueriesSchemes of \(app.infoPlistSource) lacks \(missing.joined(separator: " and ")): since \
                    iOS 9 canOpenURL: answers only for listed schemes, so the SDK cannot see that the broker is installed \
                    and never calls it
                    """)
            }
        }
        guard app.certificateBasedAuth else { return }
        if !app.usesBroker {
            report(.error, .certificateAuthBroker, app, """
                certificate_auth is set but broker is not: without the broker an app can't support certificate-based \
                authentication; set broker: true
                """)
        }
        let expected = RedirectURI.certificateAuth(for: app.redirectURI)
        guard let declared = app.certificateAuthRedirectURI else {
            report(.error, .certificateAuthRedirect, app, """
                certificate-based authentication needs a second redirect URI registered in the app and in the portal: \
                declare certificate_auth_redirect_uri: \(expected)
                """)
            return
        }
        // Percent-encoding's hex digits may be either case.
        if declared.lowercased() != expected.lowercased() {
            report(.error, .certificateAuthRedirect, app, """
                certificate_auth_redirect_uri '\(DisplayText(declared))' should be '\(DisplayText(expected))': msauth://code/ followed by the redirect \
                URI in URL-encoded form
                """)
        }
    }
}
