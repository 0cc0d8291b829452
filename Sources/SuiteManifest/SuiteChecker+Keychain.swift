import SharedKeychain

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
        if identity.keychainAccessGroups.first == group, suite.apps.count > 1 {
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
        let groups = consensus { $0.keychainGroup.identifier }
        for app in groups.dissenters {
            report(.error, .keychainGroupShared, app, """
                keychain group '\(app.keychainGroup.identifier)' differs from '\(groups.value)' used by \
                \(groups.holders.bundleIDList): apps share sign-in only through one keychain sharing group, requested in each \
                app's entitlements and set in each app's SDK configuration
                """)
        }
        guard suite.apps.count > 1, !suite.apps.contains(where: \.privileged) else { return }
        report(.info, .sharedCacheWipe, nil, """
            \(suite.apps.count) apps share \(groups.value), and any of them can remove users or delete every token in it, \
            including tokens other apps rely on for background work; mark the apps that may do so with privileged: true
            """)
    }
}
