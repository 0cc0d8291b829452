import SharedKeychain

/// One value of a manifest or property list, whatever syntax it was written in, so that one
/// reader checks fields and words errors the same way for YAML, JSON and plists.
struct DocumentNode {
    enum Value {
        case string(String)
        /// A number as written; string fields accept it (`family_id: 1`, a numeric team ID).
        case number(String)
        case boolean(Bool)
        case null
        case list([DocumentNode])
        /// Entries in document order.
        case dictionary([(key: String, value: DocumentNode)])
        /// Values a manifest never needs (plist data and dates), by type name.
        case other(String)
    }

    let value: Value
    /// The 1-based line it starts on, when the syntax reports it (YAML).
    let line: Int?

    init(_ value: Value, line: Int? = nil) {
        self.value = value
        self.line = line
    }

    /// "a string", "a list": how error messages name what was found.
    var typeName: String {
        switch value {
        case .string: "a string"
        case .number: "a number"
        case .boolean: "a boolean"
        case .null: "empty (null)"
        case .list: "a list"
        case .dictionary: "a mapping"
        case .other(let name): name
        }
    }
}

/// Why bytes could not be parsed as YAML, JSON or a property list, or were refused by the
/// document limits; the caller adds the file name.
public struct DocumentSyntaxError: Error, Sendable {
    public let reason: String
}

/// The entries of a mapping, looked up by key.
struct DocumentDictionary {
    let entries: [(key: String, value: DocumentNode)]
    let location: ManifestLocation

    /// The field, or nil when it is absent or null.
    func optional(_ key: String) -> DocumentField? {
        guard let entry = entries.first(where: { $0.key == key }) else { return nil }
        let field = DocumentField(entry.value, at: location.child(key, line: entry.value.line))
        return field.isNull ? nil : field
    }

    func required(_ key: String) throws(SuiteManifestError) -> DocumentField {
        guard let field = optional(key) else { throw .missingField(location.child(key, line: nil)) }
        return field
    }

    func bool(_ key: String, default value: Bool) throws(SuiteManifestError) -> Bool {
        try optional(key)?.bool() ?? value
    }

    /// The same mapping, known to belong to `bundleID`.
    func inApp(_ bundleID: String) -> DocumentDictionary {
        DocumentDictionary(entries: entries, location: location.inApp(bundleID))
    }
}

/// A value of a parsed document together with where it was read, so every type or value error
/// names the file, the field and the app.
struct DocumentField {
    let node: DocumentNode
    let location: ManifestLocation

    init(_ node: DocumentNode, at location: ManifestLocation) {
        self.node = node
        self.location = location
    }

    var isNull: Bool {
        if case .null = node.value { return true }
        return false
    }

    /// Text; numbers are accepted as written (`family_id: 1`).
    func string() throws(SuiteManifestError) -> String {
        switch node.value {
        case .string(let text), .number(let text): return text
        case .boolean: throw wrongType("text", hint: " (in YAML, quote it)")
        default: throw wrongType("text")
        }
    }

    /// Text that must not be empty or blank.
    func nonEmptyString() throws(SuiteManifestError) -> String {
        let text = try string()
        guard !text.allSatisfy(\.isWhitespace) else {
            throw .invalidValue(location, value: text, reason: "it must not be empty")
        }
        return text
    }

    func bool() throws(SuiteManifestError) -> Bool {
        guard case .boolean(let value) = node.value else { throw wrongType("true or false") }
        return value
    }

    func list() throws(SuiteManifestError) -> [DocumentField] {
        guard case .list(let items) = node.value else { throw wrongType("a list") }
        return items.enumerated().map { index, item in
            DocumentField(item, at: location.element(index, line: item.line))
        }
    }

    func stringList() throws(SuiteManifestError) -> [String] {
        var strings: [String] = []
        for item in try list() {
            guard case .string(let text) = item.node.value else { throw item.wrongType("text") }
            strings.append(text)
        }
        return strings
    }

    /// The mapping here; with `known`, any other key is an error naming the known ones.
    func dictionary(known: [String]? = nil) throws(SuiteManifestError) -> DocumentDictionary {
        guard case .dictionary(let entries) = node.value else { throw wrongType("a mapping") }
        if let known, let stray = entries.first(where: { !known.contains($0.key) }) {
            throw .unknownField(location.child(stray.key, line: stray.value.line), known: known)
        }
        return DocumentDictionary(entries: entries, location: location)
    }

    func wrongType(_ expected: String, hint: String = "") -> SuiteManifestError {
        .wrongType(location, expected: expected + hint, found: node.typeName)
    }
}

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
        if !field.isEmpty { text += ": \(DisplayText(field))" }
        if let app { text += " (app \(DisplayText(app)))" }
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
