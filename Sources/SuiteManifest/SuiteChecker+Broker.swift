extension SuiteChecker {
    /// The schemes the broker needs to be queryable, and certificate-based authentication's
    /// requirements.
    mutating func checkBroker(of app: SuiteApp) {
        if app.usesBroker {
            let plist = app.infoPlist.resolvingBuildVariables(bundleID: app.bundleID)
            let missing = RedirectURI.brokerSchemes.filter { !plist.queries(scheme: $0) }
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
                certificate_auth_redirect_uri '\(declared)' should be '\(expected)': msauth://code/ followed by the redirect \
                URI in URL-encoded form
                """)
        }
    }
}
