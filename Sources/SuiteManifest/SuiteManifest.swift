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
///     sdk: msal                                 # or adal; default msal
///     broker: true                              # default false
///     certificate_auth: false                   # default false
///     certificate_auth_redirect_uri: ...        # msauth://code/<url-encoded redirect URI>
///     privileged: false                         # default false
///     entitlements: mail/entitlements.plist     # or a list of keychain-access-groups entries
///     info_plist: mail/Info.plist               # or a mapping with CFBundleURLTypes,
///                                               # LSApplicationQueriesSchemes and IntuneMAMSettings
///     intune: true                              # the Intune App SDK with no IntuneMAMSettings;
///                                               # default: whether the Info.plist has them
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

/// The syntax a manifest file is written in: by its extension, else by its first character.
enum ManifestSyntax: Sendable {
    case yaml
    case json

    init(file: URL, data: Data) {
        switch file.pathExtension.lowercased() {
        case "json": self = .json
        case "yaml", "yml": self = .yaml
        default:
            // JSON documents open with an object or array; YAML manifests with a key or comment.
            let first = data.first { !Set(" \t\r\n".utf8).contains($0) }
            self = (first == UInt8(ascii: "{") || first == UInt8(ascii: "[")) ? .json : .yaml
        }
    }

    var name: String {
        switch self {
        case .yaml: "YAML"
        case .json: "JSON"
        }
    }

    func parse(_ data: Data) throws(DocumentSyntaxError) -> DocumentNode? {
        switch self {
        case .json:
            return try DocumentNode.parseJSON(data)
        case .yaml:
            return try DocumentNode.parseYAML(data)
        }
    }
}

/// Why a suite manifest, or a file it references, could not be used. Every message names the file
/// and the field, and the app when the field belongs to one.
public enum SuiteManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or directory) could not be read; `reason` says why.
    case unreadable(ManifestLocation, reason: String)
    /// The file is not valid YAML, JSON or property list.
    case malformed(ManifestLocation, reason: String)
    case missingField(ManifestLocation)
    case wrongType(ManifestLocation, expected: String, found: String)
    case invalidValue(ManifestLocation, value: String, reason: String)
    /// A key the format does not define, most often a typo.
    case unknownField(ManifestLocation, known: [String])
    /// Two apps with one bundle ID; `first` is the field of the first.
    case duplicateBundleID(ManifestLocation, first: String)
    case noApps(ManifestLocation)
    /// ``Suite/app(bundleID:)`` was asked for an app the manifest does not declare.
    case unknownApp(bundleID: String, manifest: String, known: [String])
    /// The app's entitlements could not be read or hold an unusable group.
    case entitlements(ManifestLocation, EntitlementsError)

    /// Where (file, line, field, app) and what is wrong.
    public var description: String {
        switch self {
        case .unreadable(let location, let reason):
            "\(location): cannot read: \(reason)"
        case .malformed(let location, let reason):
            "\(location): \(reason)"
        case .missingField(let location):
            "\(location): required field is missing"
        case .wrongType(let location, let expected, let found):
            "\(location): must be \(expected), but it is \(found)"
        case .invalidValue(let location, let value, let reason):
            "\(location): '\(DisplayText(value))' is not valid: \(reason)"
        case .unknownField(let location, let known):
            "\(location): unknown field; the known ones here are \(known.joined(separator: ", "))"
        case .duplicateBundleID(let location, let first):
            "\(location): the bundle ID is already used by \(first); each app of a suite has its own"
        case .noApps(let location):
            "\(location): the suite declares no apps"
        case .unknownApp(let bundleID, let manifest, let known):
            "\(manifest): no app with bundle ID '\(DisplayText(bundleID))'; the suite's apps are \(known.joined(separator: ", "))"
        case .entitlements(let location, let error):
            "\(location): \(error)"
        }
    }
}

extension SuiteManifestError: StatusReporting {
    /// Always errSecParam: the input is at fault.
    public var status: KeychainStatus { .param }
    /// The same as ``description``.
    public var message: String { description }
}

/// The apps of one suite, as a manifest declares them.
public struct Suite: Sendable, Hashable {
    /// The manifest file read (`suite.yaml` inside a directory).
    public let manifest: URL
    /// A display name, for reports.
    public let name: String?
    /// The redirect URIs registered for the suite's client ID with the identity platform, when
    /// the manifest lists them; `nil` leaves that registration unchecked.
    public let registeredRedirectURIs: [String]?
    /// In manifest order.
    public let apps: [SuiteApp]

    /// - Throws: ``SuiteManifestError/noApps(_:)`` or ``SuiteManifestError/duplicateBundleID(_:first:)``.
    public init(manifest: URL, name: String? = nil, registeredRedirectURIs: [String]? = nil, apps: [SuiteApp]) throws(SuiteManifestError) {
        guard !apps.isEmpty else { throw .noApps(ManifestLocation(file: manifest.path, field: "apps")) }
        var seen: [String: SuiteApp] = [:]
        for app in apps {
            // Bundle IDs are unique without regard to case on Apple's platforms.
            if let first = seen[app.bundleID.lowercased()] {
                throw .duplicateBundleID(app.declaration.child("bundle_id", line: nil), first: first.declaration.field)
            }
            seen[app.bundleID.lowercased()] = app
        }
        self.manifest = manifest
        self.name = name
        self.registeredRedirectURIs = registeredRedirectURIs
        self.apps = apps
    }

    /// The app with `bundleID`.
    ///
    /// - Throws: ``SuiteManifestError/unknownApp(bundleID:manifest:known:)`` listing the suite's apps.
    public func app(bundleID: String) throws(SuiteManifestError) -> SuiteApp {
        guard let app = apps.first(where: { $0.bundleID.lowercased() == bundleID.lowercased() }) else {
            throw .unknownApp(bundleID: bundleID, manifest: manifest.path, known: apps.map(\.bundleID))
        }
        return app
    }
}
