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
