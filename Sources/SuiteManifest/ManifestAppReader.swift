import Foundation
import SharedKeychain

/// Reads one entry of a manifest's `apps` list, and the property lists it references.
struct ManifestAppReader {
    static let keys = [
        "name", "bundle_id", "team_id", "client_id", "redirect_uri", "keychain_group", "family_id",
        "broker", "certificate_auth", "certificate_auth_redirect_uri", "privileged", "entitlements", "info_plist", "sdk", "intune",
    ]

    let field: DocumentField
    /// Relative plist paths resolve against the manifest's directory.
    let directory: URL

    func read() throws(SuiteManifestError) -> SuiteApp {
        let unnamed = try field.dictionary(known: Self.keys)
        let bundleField = try unnamed.required("bundle_id")
        let bundleID = try bundleField.nonEmptyString()
        // Every later error names the app.
        let entry = unnamed.inApp(bundleID)

        let teamField = try entry.required("team_id")
        let teamText = try teamField.string()
        let team: TeamIdentifier
        do { team = try TeamIdentifier(teamText) } catch {
            throw .invalidValue(teamField.location, value: teamText, reason: "a team ID is 10 upper-case letters or digits, like 'ABCDE12345'")
        }
        do { _ = try AppIdentity(bundleID: bundleID, teamID: team) } catch {
            throw .invalidValue(bundleField.location.inApp(bundleID), value: bundleID,
                                reason: "use letters, digits, '-' and '.', like 'com.contoso.mail'")
        }
        let (entitlements, entitlementsSource) = try readEntitlements(entry.required("entitlements"), appID: "\(team.rawValue).\(bundleID)")
        let (infoPlist, infoPlistSource) = try readInfoPlist(entry.required("info_plist"), app: bundleID)

        let app = SuiteApp(
            name: try entry.optional("name")?.string(),
            bundleID: bundleID,
            teamID: team,
            clientID: try entry.required("client_id").nonEmptyString(),
            redirectURI: try entry.required("redirect_uri").nonEmptyString(),
            keychainGroup: try readKeychainGroup(entry, team: team),
            familyID: try entry.optional("family_id")?.nonEmptyString(),
            usesBroker: try entry.bool("broker", default: false),
            certificateBasedAuth: try entry.bool("certificate_auth", default: false),
            certificateAuthRedirectURI: try entry.optional("certificate_auth_redirect_uri")?.nonEmptyString(),
            privileged: try entry.bool("privileged", default: false),
            entitlements: entitlements,
            entitlementsSource: entitlementsSource,
            infoPlist: infoPlist,
            infoPlistSource: infoPlistSource,
            declaration: entry.location,
            sdk: try readSDK(entry),
            intune: try readIntune(entry, infoPlist: infoPlist))
        // The override must make a group once the SDK puts the team in front of it.
        _ = try app.intuneCacheGroup()
        return app
    }

    /// `intune: true` for an app with the Intune App SDK whose Info.plist has no
    /// `IntuneMAMSettings` (the SDK then reads `com.microsoft.adalcache`); the dictionary alone
    /// says the same, and `intune: false` beside it contradicts it.
    private func readIntune(_ entry: DocumentDictionary, infoPlist: InfoPlist) throws(SuiteManifestError) -> IntuneSettings? {
        guard let field = entry.optional("intune") else { return nil }
        let declared = try field.bool()
        if !declared, infoPlist.intune != nil {
            throw .invalidValue(field.location, value: "false", reason: """
                the app's Info.plist has \(IntuneSettings.settingsKey), so it has the Intune App SDK; remove intune: false, or the dictionary
                """)
        }
        return declared ? infoPlist.intune ?? IntuneSettings() : nil
    }

    /// `sdk: msal` (the default) or `sdk: adal`; anything else names the field and the choices.
    private func readSDK(_ entry: DocumentDictionary) throws(SuiteManifestError) -> IdentitySDK {
        guard let field = entry.optional("sdk") else { return .msal }
        let text = try field.nonEmptyString()
        guard let sdk = IdentitySDK(rawValue: text.trimmingCharacters(in: .whitespaces).lowercased()) else {
            throw .invalidValue(field.location, value: text, reason: "the SDK is 'msal' (the default) or 'adal'")
        }
        return sdk
    }

    /// The group the SDK is told to use, written without the team prefix, as in
    /// `keychainSharingGroup = "com.microsoft.adalcache"`.
    private func readKeychainGroup(_ entry: DocumentDictionary, team: TeamIdentifier) throws(SuiteManifestError) -> AccessGroup {
        let field = entry.optional("keychain_group")
        let location = field?.location ?? entry.location.child("keychain_group", line: nil)
        let text = try field?.nonEmptyString() ?? SuiteApp.defaultKeychainGroup
        if text.hasPrefix("\(team.rawValue).") || text.hasPrefix("$(") {
            throw .invalidValue(location, value: text,
                                reason: "write the group without the team prefix (like 'com.microsoft.adalcache'); the SDK adds '\(team.rawValue).' itself")
        }
        do { return try AccessGroup(teamID: team, identifier: text) } catch {
            guard case .malformedGroup(_, let reason) = error else { throw .invalidValue(location, value: text, reason: "\(error)") }
            throw .invalidValue(location, value: text, reason: reason)
        }
    }

    /// A path to an entitlements plist, the `keychain-access-groups` entries inline, or a
    /// mapping with `keychain-access-groups` and `com.apple.security.application-groups`.
    /// Entries inline describe the app as Xcode builds it, so they carry `appID` as
    /// `application-identifier`, which signing adds; a file is taken as it is, which may be a
    /// signed build's dump without any keychain entitlement.
    private func readEntitlements(_ field: DocumentField, appID: String) throws(SuiteManifestError) -> (Entitlements, PlistSource) {
        switch field.node.value {
        case .list:
            return (Entitlements(keychainAccessGroups: try field.stringList(), applicationIdentifier: appID), .inline(field.location))
        case .dictionary:
            let keys = [Entitlements.keychainAccessGroupsKey, Entitlements.applicationGroupsKey]
            let entries = try field.dictionary(known: keys)
            return (Entitlements(
                keychainAccessGroups: try entries.optional(Entitlements.keychainAccessGroupsKey)?.stringList() ?? [],
                applicationGroups: try entries.optional(Entitlements.applicationGroupsKey)?.stringList() ?? [],
                applicationIdentifier: appID), .inline(field.location))
        case .string(let path):
            let url = resolve(path)
            do { return (try Entitlements(contentsOf: url), .file(url)) } catch {
                throw .entitlements(field.location, error)
            }
        default:
            throw field.wrongType(
                "a path to an entitlements.plist, a list of keychain-access-groups entries, or a mapping with keychain-access-groups and com.apple.security.application-groups")
        }
    }

    /// A path to an Info.plist, or a mapping with its `CFBundleURLTypes` and
    /// `LSApplicationQueriesSchemes` inline.
    private func readInfoPlist(_ field: DocumentField, app: String) throws(SuiteManifestError) -> (InfoPlist, PlistSource) {
        switch field.node.value {
        case .dictionary:
            return (try InfoPlist(field, strict: true), .inline(field.location))
        case .string(let path):
            let url = resolve(path)
            return (try InfoPlist(contentsOf: url, app: app), .file(url))
        default:
            throw field.wrongType("a path to an Info.plist, or a mapping with CFBundleURLTypes and LSApplicationQueriesSchemes")
        }
    }

    private func resolve(_ path: String) -> URL {
        URL(fileURLWithPath: path, relativeTo: directory).standardizedFileURL
    }
}
