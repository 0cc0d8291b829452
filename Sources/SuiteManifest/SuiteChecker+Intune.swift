import SharedKeychain

extension SuiteChecker {
    /// An app with the Intune App SDK must keep its token cache where the SDK reads the user's
    /// token: `com.microsoft.adalcache`, or the group `ADALCacheKeychainGroupOverride` names.
    /// Otherwise enrolment finds no token and MAM policy never applies, with no error at build
    /// time: the usual way to get there is moving the cache to a per-app group without the override.
    mutating func checkIntune(of app: SuiteApp) {
        let intuneGroup: AccessGroup
        do {
            guard let group = try app.intuneCacheGroup() else { return }
            intuneGroup = group
        } catch {
            report(.error, .intuneCacheGroup, app, error.description)
            return
        }
        // Intune reads with the app's own entitlements; a cache group the app may not use is
        // keychain-group-entitled's finding, whichever group Intune reads.
        guard intuneGroup != app.keychainGroup else { return }
        let override = app.intune?.cacheGroupOverride == nil
            ? "no \(IntuneSettings.cacheGroupOverrideKey) is set, so it reads the default"
            : "\(IntuneSettings.cacheGroupOverrideKey) names it"
        report(.error, .intuneCacheGroup, app, """
            the Intune App SDK reads the user's token from \(intuneGroup) (\(override)), but \(app.sdk == .adal ? "ADAL" : "MSAL") keeps \
            the app's cache in \(app.keychainGroup): Intune finds no token, so enrolment fails (registerAndEnrollAccount: failure 203, "could not access the user's AAD \
            token") and MAM policy never applies; set \
            \(IntuneSettings.cacheGroupOverrideKey) to '\(DisplayText(app.keychainGroup.identifier))' in \(IntuneSettings.settingsKey) \
            of \(app.infoPlistSource), or keep the cache in \(intuneGroup)
            """)
    }
}
