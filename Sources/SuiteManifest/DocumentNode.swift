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
