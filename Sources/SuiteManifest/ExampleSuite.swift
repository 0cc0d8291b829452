import Foundation
import SharedKeychain
import TokenCache

/// The suite `suite init` writes: three Contoso apps under team `ABCDE12345` sharing one client
/// ID and `com.microsoft.adalcache`, with real XML plists, configured so that `suite check`
/// finds no error and no warning.
public enum ExampleSuite {
    /// The team every example app belongs to.
    public static let teamID = "ABCDE12345"
    /// The one client ID the example apps share.
    public static let clientID = "7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d"
    /// The manifest's file name inside the suite's directory.
    public static let manifestName = "suite.yaml"

    struct App {
        let name: String
        let folder: String
        let bundleID: String
        let familyID: String?
        let broker: Bool
        let certificateAuth: Bool
        let privileged: Bool

        var redirectURI: String { RedirectURI.msalDefault(bundleID: bundleID) }
        var certificateAuthRedirectURI: String { RedirectURI.certificateAuth(for: redirectURI) }
    }

    static let apps = [
        App(name: "Contoso Mail", folder: "mail", bundleID: "com.contoso.mail", familyID: "1",
            broker: true, certificateAuth: true, privileged: true),
        App(name: "Contoso Calendar", folder: "calendar", bundleID: "com.contoso.calendar", familyID: "1",
            broker: true, certificateAuth: false, privileged: false),
        App(name: "Contoso Notes", folder: "notes", bundleID: "com.contoso.notes", familyID: nil,
            broker: false, certificateAuth: false, privileged: false),
    ]

    /// Every file of the example: paths relative to the suite's directory, and contents.
    public static func files() throws(ExampleSuiteError) -> [(path: String, contents: Data)] {
        var files: [(path: String, contents: Data)] = [(manifestName, Data(manifest.utf8))]
        for app in apps {
            files.append(("\(app.folder)/entitlements.plist", try plist(entitlements(app), name: "entitlements.plist")))
            files.append(("\(app.folder)/Info.plist", try plist(infoPlist(app), name: "Info.plist")))
        }
        return files
    }

    /// Writes the example into `directory`, creating it as needed.
    ///
    /// - Returns: the files written, manifest first.
    /// - Throws: ``ExampleSuiteError/wouldOverwrite(directory:files:)`` before writing anything
    ///   when one of the files exists, unless `force`.
    @discardableResult
    public static func write(to directory: URL, force: Bool = false) throws(ExampleSuiteError) -> [URL] {
        try write(files(), to: directory, force: force)
    }

    /// Writes `files` (paths relative to `directory`) as ``write(to:force:)`` does.
    static func write(_ files: [(path: String, contents: Data)], to directory: URL, force: Bool) throws(ExampleSuiteError) -> [URL] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw .notADirectory(directory.path)
        }
        let existing = files.map(\.path).filter {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
        if !existing.isEmpty, !force { throw .wouldOverwrite(directory: directory.path, files: existing) }
        for file in files {
            let url = directory.appendingPathComponent(file.path)
            do { try PrivateFile.checkReplaceable(url) } catch { throw .writeFailed(file: url.path, reason: error.description) }
        }
        var written: [URL] = []
        for file in files {
            let url = directory.appendingPathComponent(file.path)
            // 0600 files in 0700 folders, like everything the tool writes; never through a link.
            do { try PrivateFile.write(file.contents, to: url) } catch {
                throw .writeFailed(file: url.path, reason: error.description)
            }
            written.append(url)
        }
        return written
    }

    /// Xcode's entitlements: the app's own group first, so its private items stay private, then
    /// the shared group.
    static func entitlements(_ app: App) -> [String: Any] {
        [Entitlements.keychainAccessGroupsKey: [
            "$(AppIdentifierPrefix)\(app.bundleID)", "$(AppIdentifierPrefix)\(SuiteApp.defaultKeychainGroup)",
        ]]
    }

    /// Xcode's Info.plist keys, with the bundle-ID build variable as Xcode's templates write it.
    static func infoPlist(_ app: App) -> [String: Any] {
        let bundleID = InfoPlist.bundleIDVariables[0]
        var root: [String: Any] = [
            "CFBundleDisplayName": app.name,
            InfoPlist.bundleIdentifierKey: bundleID,
            InfoPlist.urlTypesKey: [[
                "CFBundleTypeRole": "Editor",
                "CFBundleURLName": bundleID,
                InfoPlist.urlSchemesKey: [RedirectURI.msalScheme(bundleID: bundleID)],
            ] as [String: Any]],
        ]
        if app.broker { root[InfoPlist.queriesSchemesKey] = RedirectURI.brokerSchemes }
        return root
    }

    private static func plist(_ root: [String: Any], name: String) throws(ExampleSuiteError) -> Data {
        do { return try PropertyListSerialization.data(fromPropertyList: root, format: .xml, options: 0) } catch {
            throw .writeFailed(file: name, reason: (error as NSError).localizedDescription)
        }
    }

    static var manifest: String {
        let registered = apps.flatMap { app in
            [app.redirectURI] + (app.certificateAuth ? [app.certificateAuthRedirectURI] : [])
        }
        return """
            # A suite of iOS apps sharing Microsoft sign-in (MSAL/ADAL) through one keychain group.
            # \(Remedy.checkWrittenSuite)
            #
            # All apps of a suite use ONE client ID and each its OWN redirect URI; all are signed by
            # one team and list the keychain sharing group in their entitlements. Plist paths are
            # relative to this file; entitlements and info_plist may also be written inline.
            name: Contoso

            # The redirect URIs registered for the client ID in the portal. Optional: without it,
            # registration is not checked.
            registered_redirect_uris:
            \(registered.map { "  - \($0)" }.joined(separator: "\n"))

            apps:
            \(apps.map(entry).joined(separator: "\n\n"))

            """
    }

    private static func entry(_ app: App) -> String {
        var lines = [
            "  - name: \(app.name)",
            "    bundle_id: \(app.bundleID)",
            "    team_id: \(teamID)",
            "    client_id: \(clientID)",
            commented("    redirect_uri: \(app.redirectURI)", "MSAL's default, msauth.<bundle id>://auth"),
            commented("    keychain_group: \(SuiteApp.defaultKeychainGroup)", "the default; no team prefix"),
        ]
        if let familyID = app.familyID { lines.append("    family_id: \"\(familyID)\"") }
        lines.append(app.broker
            ? commented("    broker: true", "needs msauth and msauthv2 in LSApplicationQueriesSchemes")
            : "    broker: false")
        if app.certificateAuth {
            lines.append(commented("    certificate_auth: true", "needs the broker and a second redirect URI:"))
            lines.append("    certificate_auth_redirect_uri: \(app.certificateAuthRedirectURI)")
        }
        if app.privileged { lines.append(commented("    privileged: true", "may wipe the shared cache")) }
        lines.append("    entitlements: \(app.folder)/entitlements.plist")
        lines.append("    info_plist: \(app.folder)/Info.plist")
        return lines.joined(separator: "\n")
    }

    /// `line`, then `# comment` in a column of its own.
    private static func commented(_ line: String, _ comment: String) -> String {
        line.padding(toLength: max(line.count + 2, 56), withPad: " ", startingAt: 0) + "# " + comment
    }
}

/// Why ``ExampleSuite/write(to:force:)`` wrote nothing, or not everything.
public enum ExampleSuiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Files that exist; nothing was written.
    case wouldOverwrite(directory: String, files: [String])
    /// The target exists and is not a directory.
    case notADirectory(String)
    case writeFailed(file: String, reason: String)

    /// What went wrong, naming the files.
    public var description: String {
        switch self {
        case .wouldOverwrite(let directory, let files):
            "refusing to overwrite \(files.joined(separator: ", ")) in \(directory): nothing was written; \(Remedy.overwriteSuite)"
        case .notADirectory(let path):
            "'\(path)' exists and is not a directory"
        case .writeFailed(let file, let reason):
            "cannot write '\(file)': \(reason)"
        }
    }
}

extension ExampleSuiteError: StatusReporting {
    /// errSecParam for a target that is in the way, errSecIO when writing failed.
    public var status: KeychainStatus {
        if case .writeFailed = self { return .io }
        return .param
    }

    /// The same as ``description``.
    public var message: String { description }
}
