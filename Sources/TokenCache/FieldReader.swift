import Foundation

/// Reads the known fields of one cache value, with messages that name the field and never its
/// value (a value may be a token).
struct FieldReader {
    let object: JSONObject

    /// A required non-empty string.
    func string(_ key: String) throws(FieldError) -> String {
        guard let value = try optionalString(key) else { throw FieldError("'\(key)' is missing") }
        guard !value.trimmingWhitespace.isEmpty else { throw FieldError("'\(key)' is empty") }
        return value
    }

    /// A string that may be absent or null.
    func optionalString(_ key: String) throws(FieldError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw FieldError("'\(key)' must be a string, but it is \(other.kindName)")
        }
    }

    /// A timestamp: whole epoch seconds, as a string (the schema's form) or as a JSON integer.
    func timestamp(_ key: String) throws(FieldError) -> Date? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return Date(timeIntervalSince1970: TimeInterval(value))
        case .string(let text)?:
            guard let value = Int64(text) else { throw FieldError("'\(key)' must be whole epoch seconds, like \"1700000000\"") }
            return Date(timeIntervalSince1970: TimeInterval(value))
        case let other?: throw FieldError("'\(key)' must be a string of whole epoch seconds, but it is \(other.kindName)")
        }
    }
}
