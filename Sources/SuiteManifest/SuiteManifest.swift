import Foundation
import SharedKeychain

/// Reads suite manifests: a YAML or JSON file, or a directory holding `suite.yaml` and the
/// property lists it references by relative path.
///
/// ```yaml
/// name: Contoso
/// registered_redirect_uris: [msauth.com.contoso.mail://auth]   # optional
/// apps:
///   - name: Contoso Mail
///     bundle_id: com.contoso.mail
///     team_id: ABCDE12345
///     client_id: 7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d
///     redirect_uri: msauth.com.contoso.mail://auth
///     keychain_group: com.microsoft.adalcache   # the default
///     family_id: "1"                            # optional
///     broker: true                              # default false
///     certificate_auth: false                   # default false
///     certificate_auth_redirect_uri: ...        # msauth://code/<url-encoded redirect URI>
///     privileged: false                         # default false
///     entitlements: mail/entitlements.plist     # or a list of keychain-access-groups entries
///     info_plist: mail/Info.plist               # or a mapping with CFBundleURLTypes and
///                                               # LSApplicationQueriesSchemes
/// ```
public enum SuiteManifest {
    /// The manifest names looked for, in order, when ``load(from:)`` is given a directory.
    public static let directoryManifestNames = ["suite.yaml", "suite.yml", "suite.json"]

    static let suiteKeys = ["name", "registered_redirect_uris", "apps"]

    /// Reads a manifest file, or the manifest inside a directory, and the property lists it
    /// references (paths relative to the manifest's directory).
    ///
    /// - Throws: ``SuiteManifestError`` naming the file, the field and the app.
    public static func load(from url: URL) throws(SuiteManifestError) -> Suite {
        let file = try manifestFile(at: url)
        let data: Data
        do { data = try InputValidation.readDocument(at: file, field: "suite manifest") } catch {
            throw .unreadable(ManifestLocation(file: file.path), reason: error.message)
        }
        let syntax = ManifestSyntax(file: file, data: data)
        let parsed: DocumentNode?
        do { parsed = try syntax.parse(data) } catch {
            throw .malformed(ManifestLocation(file: file.path), reason: "not valid \(syntax.name): \(error.reason)")
        }
        guard let parsed else { throw .noApps(ManifestLocation(file: file.path, field: "apps")) }
        return try suite(from: DocumentField(parsed, at: ManifestLocation(file: file.path)), manifest: file)
    }

    /// The file itself, or the first of ``directoryManifestNames`` inside a directory.
    static func manifestFile(at url: URL) throws(SuiteManifestError) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .unreadable(ManifestLocation(file: url.path), reason: "no such file or directory")
        }
        guard isDirectory.boolValue else { return url }
        for name in directoryManifestNames {
            let candidate = url.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
        }
        throw .unreadable(ManifestLocation(file: url.path),
                          reason: "the directory holds none of \(directoryManifestNames.joined(separator: ", "))")
    }

    static func suite(from root: DocumentField, manifest: URL) throws(SuiteManifestError) -> Suite {
        let top = try root.dictionary(known: suiteKeys)
        let appsField = try top.required("apps")
        let directory = manifest.deletingLastPathComponent()
        var apps: [SuiteApp] = []
        for field in try appsField.list() {
            apps.append(try ManifestAppReader(field: field, directory: directory).read())
        }
        guard !apps.isEmpty else { throw .noApps(appsField.location) }
        return try Suite(
            manifest: manifest,
            name: top.optional("name")?.string(),
            registeredRedirectURIs: top.optional("registered_redirect_uris")?.stringList(),
            apps: apps)
    }
}
