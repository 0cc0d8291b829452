import Foundation

/// Where an app's entitlements or Info.plist came from: written inline in the manifest, or a
/// property-list file it references.
public enum PlistSource: Sendable, Hashable, CustomStringConvertible {
    /// Inline, at this manifest field.
    case inline(ManifestLocation)
    /// A file, its path resolved against the manifest's directory.
    case file(URL)

    /// `/suite/mail/Info.plist`, or `apps[0].info_plist in /suite/suite.yaml` when inline.
    public var description: String {
        switch self {
        case .inline(let location): "\(location.field) in \(location.file)"
        case .file(let url): url.path
        }
    }
}
