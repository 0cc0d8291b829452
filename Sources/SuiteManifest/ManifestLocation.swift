/// Where in the input a value was read: the file, the field's path in it (`apps[1].redirect_uri`),
/// the app it belongs to when known, and the line when the syntax reports one.
public struct ManifestLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path as given (a manifest, an Info.plist or an entitlements file).
    public let file: String
    /// The field's path inside the file; empty for the whole file.
    public let field: String
    /// The bundle ID of the app the field belongs to.
    public let app: String?
    /// The 1-based line, when the syntax reports one (YAML).
    public let line: Int?

    /// A location; the field, app and line are optional.
    public init(file: String, field: String = "", app: String? = nil, line: Int? = nil) {
        self.file = file
        self.field = field
        self.app = app
        self.line = line
    }

    /// `suite.yaml:14: apps[1].redirect_uri (app com.contoso.calendar)`
    public var description: String {
        var text = file + (line.map { ":\($0)" } ?? "")
        if !field.isEmpty { text += ": \(field)" }
        if let app { text += " (app \(app))" }
        return text
    }

    /// The location of `key` inside this one (`apps[1]` + `redirect_uri`).
    func child(_ key: String, line: Int?) -> ManifestLocation {
        ManifestLocation(file: file, field: field.isEmpty ? key : "\(field).\(key)", app: app, line: line ?? self.line)
    }

    /// The location of element `index` of the list here (`apps` + 1 = `apps[1]`).
    func element(_ index: Int, line: Int?) -> ManifestLocation {
        ManifestLocation(file: file, field: "\(field)[\(index)]", app: app, line: line ?? self.line)
    }

    /// The same location, known to belong to `bundleID`.
    func inApp(_ bundleID: String) -> ManifestLocation {
        ManifestLocation(file: file, field: field, app: bundleID, line: line)
    }
}
