import Foundation

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
