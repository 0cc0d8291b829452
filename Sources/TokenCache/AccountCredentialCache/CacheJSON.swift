import Foundation
import SharedKeychain

/// Encoding and decoding of cache values. Output has sorted keys, so equal objects are equal bytes.
enum CacheJSON {
    /// `object` as compact UTF-8 JSON, the form item values are stored in.
    static func data(_ object: JSONObject) -> Data {
        encode(.object(object), pretty: false)
    }

    /// `value` as UTF-8 JSON with sorted keys; `pretty` for files people read.
    static func encode(_ value: JSONValue, pretty: Bool) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue holds only finite numbers (the decoder accepts nothing else), so this
        // cannot fail; an empty object is the harmless fallback.
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// Parses a JSON object; nil when `data` is not UTF-8 JSON with an object at the top.
    ///
    /// Through `JSONSerialization`, not `JSONDecoder`: a `Decodable` JSONValue can only learn a
    /// value's kind by trying each in turn, and every failed try throws, which made reading a
    /// cache item cost tens of microseconds (measured 6x slower; every read of the cache parses
    /// every item of the group).
    ///
    /// Another app's value is held to ``InputValidation/DocumentLimits/storedValue``'s size;
    /// `JSONSerialization` itself refuses nesting deeper than 512 (measured on Linux: 20,000
    /// levels of arrays or objects are an error, not a crash).
    static func object(from data: Data) -> JSONObject? {
        try? parse(data)
    }

    /// ``object(from:)``, saying why it fails.
    static func parse(_ data: Data) throws(ItemDecodingError) -> JSONObject {
        let limit = InputValidation.DocumentLimits.storedValue.maxBytes
        guard data.count <= limit else { throw .tooLarge(bytes: data.count, limit: limit) }
        guard let parsed = try? JSONSerialization.jsonObject(with: data), let object = JSONValue(parsed)?.objectValue else { throw .notJSON }
        return object
    }
}

/// A JSON value kept as parsed, so fields this module does not know survive a rewrite.
enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before numbers: Foundation refuses to read a number as a Bool, but not always the reverse.
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A value `JSONSerialization` returned; nil for anything it never returns. Swift types are
    /// tried first: casting a Swift dictionary or array to a class (`NSNumber`, `NSNull`) bridges
    /// it to Foundation first, which cost more than the parse.
    init?(_ parsed: Any) {
        switch parsed {
        case let text as String:
            self = .string(text)
        case let dictionary as [String: Any]:
            var values: [String: JSONValue] = [:]
            values.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                guard let value = JSONValue(element) else { return nil }
                values[key] = value
            }
            self = .object(values)
        case let array as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(array.count)
            for element in array {
                guard let value = JSONValue(element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let number as NSNumber:
            // JSONSerialization makes true and false with NSNumber(value: Bool) ("c"), integers
            // as integer types, and other numbers as doubles ("d").
            switch UInt8(bitPattern: number.objCType.pointee) {
            case UInt8(ascii: "c"), UInt8(ascii: "B"): self = .bool(number.boolValue)
            case UInt8(ascii: "d"), UInt8(ascii: "f"): self = .number(number.doubleValue)
            default: self = .integer(number.int64Value)
            }
        case is NSNull:
            self = .null
        default:
            return nil
        }
    }

    /// The string, when this is one.
    var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The object, when this is one.
    var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { value } else { nil }
    }

    /// A short name of the value's kind for error messages (never the value: it may be a secret).
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// A JSON object: the value of every cache item.
typealias JSONObject = [String: JSONValue]

/// Reads the known fields of one cache value, with messages that name the field and never its
/// value (a value may be a token).
struct FieldReader {
    let object: JSONObject

    /// A required non-empty string.
    func string(_ key: String) throws(FieldError) -> String {
        guard let value = try optionalString(key) else { throw FieldError("'\(DisplayText(key))' is missing") }
        guard !value.trimmingWhitespace.isEmpty else { throw FieldError("'\(DisplayText(key))' is empty") }
        return value
    }

    /// A string that may be absent or null.
    func optionalString(_ key: String) throws(FieldError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw FieldError("'\(DisplayText(key))' must be a string, but it is \(other.kindName)")
        }
    }

    /// A timestamp: whole epoch seconds, as a string (the schema's form) or as a JSON integer.
    func timestamp(_ key: String) throws(FieldError) -> Date? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return Date(timeIntervalSince1970: TimeInterval(value))
        case .string(let text)?:
            guard let value = Int64(text) else { throw FieldError("'\(DisplayText(key))' must be whole epoch seconds, like \"1700000000\"") }
            return Date(timeIntervalSince1970: TimeInterval(value))
        case let other?: throw FieldError("'\(DisplayText(key))' must be a string of whole epoch seconds, but it is \(other.kindName)")
        }
    }
}

/// Why one field of a cache value is unusable; the caller adds which item it belongs to.
struct FieldError: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
