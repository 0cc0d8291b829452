/// Why bytes could not be parsed as YAML, JSON or a property list; the caller adds the file name.
struct DocumentSyntaxError: Error {
    let reason: String
}
