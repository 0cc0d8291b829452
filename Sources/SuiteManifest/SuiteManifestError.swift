import SharedKeychain

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
            "\(location): '\(value)' is not valid: \(reason)"
        case .unknownField(let location, let known):
            "\(location): unknown field; the known ones here are \(known.joined(separator: ", "))"
        case .duplicateBundleID(let location, let first):
            "\(location): the bundle ID is already used by \(first); each app of a suite has its own"
        case .noApps(let location):
            "\(location): the suite declares no apps"
        case .unknownApp(let bundleID, let manifest, let known):
            "\(manifest): no app with bundle ID '\(bundleID)'; the suite's apps are \(known.joined(separator: ", "))"
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
