import SharedKeychain
import TokenCache

extension SuiteChecker {
    /// The redirect URI's form, the bundle ID it names, and its scheme's registration.
    mutating func checkRedirectURI(of app: SuiteApp) {
        let text = app.redirectURI
        guard let uri = RedirectURI(text) else {
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' is not of the form <scheme>://<host>: MSAL refuses it when the app creates its \
                client application; use \(RedirectURI.msalDefault(bundleID: app.bundleID))
                """)
            return
        }
        if uri.usesBrokerScheme {
            let hint = uri.rawValue.lowercased().hasPrefix("msauth://code/")
                ? " ('\(DisplayText(text))' is the certificate-based-auth URI: declare it as certificate_auth_redirect_uri)" : ""
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' uses the broker's own scheme '\(DisplayText(uri.scheme))'\(hint); the app's redirect URI must use \
                a scheme of its own, like \(RedirectURI.msalDefault(bundleID: app.bundleID))
                """)
            return
        }
        switch uri.scheme.lowercased() {
        case "https":
            report(.info, .redirectURIUniversalLink, app, """
                redirect URI '\(DisplayText(text))' is a universal link: it is not declared in CFBundleURLSchemes; the app's Associated \
                Domains must include \(uri.host), and the app must pass the URL it is opened with to \
                MSALPublicClientApplication.handleMSALResponse(_:sourceApplication:)
                """)
            return
        case "http":
            report(.error, .redirectURIForm, app, """
                redirect URI '\(DisplayText(text))' uses http, which is neither a custom URL scheme nor a universal link (https)
                """)
            return
        default:
            break
        }
        guard checkNamedBundle(of: app, uri) else { return }
        checkSchemeRegistration(of: app, uri)
    }

    /// Checks the bundle ID the redirect URI names, in `msauth.<bundle id>://auth` or the legacy
    /// `<scheme>://<bundle id>`; false when it names another app, so scheme advice would mislead.
    private mutating func checkNamedBundle(of app: SuiteApp, _ uri: RedirectURI) -> Bool {
        let own = RedirectURI.msalDefault(bundleID: app.bundleID)
        let named = uri.msalSchemeBundleID ?? uri.host
        if named.lowercased() == app.bundleID.lowercased() {
            // For an ADAL app the legacy form is the SDK's own: nothing to say.
            if uri.msalSchemeBundleID == nil {
                if app.sdk == .msal {
                    report(.info, .redirectURILegacy, app, """
                        redirect URI '\(DisplayText(uri.rawValue))' has the legacy ADAL form <scheme>://<bundle id>, which still works with MSAL; \
                        the MSAL default is \(own)
                        """)
                }
            } else if uri.host != "auth" || !uri.remainder.isEmpty {
                report(.warning, .redirectURIForm, app, """
                    redirect URI '\(DisplayText(uri.rawValue))' is not the MSAL default \(own); use the default unless a scenario needs another
                    """)
            }
            return true
        }
        if let other = others(than: app).first(where: { $0.bundleID.lowercased() == named.lowercased() }) {
            report(.error, .redirectURIOtherApp, app, """
                redirect URI '\(DisplayText(uri.rawValue))' names \(other.displayName), not this app: the broker gets the calling app's bundle ID \
                from iOS and denies tokens when it does not match the bundle ID of the redirect URI registered; use \(own)
                """)
            return false
        }
        if uri.msalSchemeBundleID != nil {
            report(.error, .redirectURIBundleMismatch, app, """
                redirect URI '\(DisplayText(uri.rawValue))' names bundle ID '\(DisplayText(named))', but the app's is '\(DisplayText(app.bundleID))': the broker denies tokens \
                when the caller's bundle ID does not match the registered redirect URI; use \(own)
                """)
            return false
        }
        // A custom scheme whose host is not a bundle ID: fine for MSAL alone, not for the broker.
        report(app.usesBroker ? .error : .warning, .redirectURIForm, app, """
            redirect URI '\(DisplayText(uri.rawValue))' does not contain the app's bundle ID: \(app.usesBroker ? "the broker" : "a broker, if the app ever uses one,") \
            only returns tokens to msauth.<bundle id>://auth or <scheme>://<bundle id>; use \(own)
            """)
        return true
    }

    /// A custom scheme must be in the app's `CFBundleURLSchemes`, and should be in no sibling's.
    private mutating func checkSchemeRegistration(of app: SuiteApp, _ uri: RedirectURI) {
        let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
        if !plist.registers(scheme: uri.scheme) {
            report(.error, .redirectSchemeRegistered, app, """
                scheme '\(DisplayText(uri.scheme))' of redirect URI '\(DisplayText(uri.rawValue))' is not in CFBundleURLTypes > CFBundleURLSchemes of \
                \(app.infoPlistSource): MSAL checks it and returns an error at runtime
                """)
        }
        let claimants = others(than: app).filter {
            $0.infoPlist.resolvingBuildVariables(bundleID: $0.bundleID).registers(scheme: uri.scheme)
        }
        if !claimants.isEmpty {
            report(.warning, .urlSchemeUnique, app, """
                scheme '\(DisplayText(uri.scheme))' is also registered by \(claimants.bundleIDList): iOS does not enforce unique URL \
                schemes and does not define which app opens a shared one, so a sign-in response may reach the wrong app
                """)
        }
    }

    /// What an Info.plist gets wrong on its own.
    mutating func checkInfoPlist(of app: SuiteApp) {
        let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
        for scheme in plist.urlSchemes where ["https", "http"].contains(scheme.lowercased()) {
            report(.warning, .universalLinkNotAScheme, app, """
                '\(DisplayText(scheme))' is listed in CFBundleURLSchemes of \(app.infoPlistSource): universal links are not declared \
                there but through Associated Domains
                """)
        }
        if let declared = plist.bundleIdentifier, !declared.contains("$("), !declared.contains("${"),
           declared.lowercased() != app.bundleID.lowercased() {
            report(.error, .infoPlistBundleID, app, """
                \(app.infoPlistSource) has CFBundleIdentifier '\(DisplayText(declared))', not '\(DisplayText(app.bundleID))': the manifest references \
                another app's Info.plist, so its URL schemes are not this app's
                """)
        }
    }
}
