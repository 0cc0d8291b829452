extension SuiteChecker {
    /// One client ID for the suite, one redirect URI per app, and (when the manifest lists the
    /// registration's redirect URIs) each app's URIs registered.
    mutating func checkRegistration() {
        // Client IDs are GUIDs; the SDK lowercases them in cache keys.
        let clientIDs = consensus { $0.clientID.lowercased() }
        for app in clientIDs.dissenters {
            report(.error, .clientIDShared, app, """
                client ID '\(app.clientID)' differs from '\(clientIDs.holders[0].clientID)' used by \(clientIDs.holders.bundleIDList): \
                all apps of a suite must use the same client ID (application ID) for the identity platform to share \
                tokens across them; the apps are told apart by their redirect URIs
                """)
        }

        for app in suite.apps {
            let sharing = others(than: app).filter { $0.redirectURI.lowercased() == app.redirectURI.lowercased() }
            // The app whose bundle ID the shared URI names keeps it; the others copied it.
            if !sharing.isEmpty, !ownsRedirectURI(app) || sharing.contains(where: ownsRedirectURI) {
                report(.error, .redirectURIDistinct, app, """
                    redirect URI '\(app.redirectURI)' is also used by \(sharing.bundleIDList): each app of a suite needs its own \
                    redirect URI, since apps sharing one client ID are identified by it; use \(RedirectURI.msalDefault(bundleID: app.bundleID))
                    """)
            }
        }

        guard let registered = suite.registeredRedirectURIs else { return }
        for app in suite.apps {
            if !registered.contains(app.redirectURI) {
                report(.error, .redirectURIRegistered, app, """
                    redirect URI '\(app.redirectURI)' is not among the registered_redirect_uris of client ID '\(app.clientID)': \
                    add it to the app registration, or sign-in fails because the identity platform looks the app up by its redirect URI
                    """)
            }
            let certificateURI = RedirectURI.certificateAuth(for: app.redirectURI)
            if app.certificateBasedAuth, !registered.contains(certificateURI) {
                report(.error, .redirectURIRegistered, app, """
                    certificate-based authentication needs '\(certificateURI)' registered in the portal as well as in the app; \
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
