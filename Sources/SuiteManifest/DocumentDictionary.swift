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
