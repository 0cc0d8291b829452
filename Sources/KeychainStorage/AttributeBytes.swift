import Foundation

/// `kSecAttrAccount` and `kSecAttrService` as code gives them: a `String` or `Data`.
///
/// Keychain Services keeps both as bytes (a `String` as its UTF-8), so an item added with a
/// `Data` account `"alice".data(using: .utf8)` has the same primary key as one added with the
/// `String` `"alice"`; a search returns the attribute in the type it was added with.
public enum AttributeValue: Sendable, Hashable {
    case string(String)
    case data(Data)

    /// The value's bytes: a string's UTF-8, or the data itself.
    public var bytes: Data {
        switch self {
        case .string(let text): Data(text.utf8)
        case .data(let bytes): bytes
        }
    }

    /// Whether the value was given as `Data`.
    public var isData: Bool {
        if case .data = self { return true }
        return false
    }

    /// The form the storage layer keeps and compares (``AttributeBytes/key(for:)``).
    public var key: String { AttributeBytes.key(for: bytes) }

    /// The value an item keeps as `key`, in the type it was given (`isData`).
    public init(key: String, isData: Bool) {
        self = isData ? .data(AttributeBytes.bytes(of: key)) : .string(AttributeBytes.text(of: key))
    }
}

/// The one string form of an account or service, whatever type it was given as: what items and
/// queries hold, what the Secret Service stores in the `account` and `service` attributes, and
/// what the primary key compares.
///
/// Bytes that are valid UTF-8, hold no NUL (a D-Bus string cannot) and do not start with
/// ``marker`` are that text, unchanged (every account ever stored as a string). Any other bytes
/// are ``marker`` followed by their base64. The form is one-to-one: equal bytes, equal form.
public enum AttributeBytes {
    /// Starts the form of bytes that are no plain text: U+0001 and `base64:`.
    public static let marker = "\u{1}base64:"

    /// The storage form of `bytes`.
    public static func key(for bytes: Data) -> String {
        if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self), !text.hasPrefix(marker) {
            return text
        }
        return marker + bytes.base64EncodedString()
    }

    /// The storage form of `text` (itself, unless it holds NUL or starts with ``marker``).
    public static func key(for text: String) -> String {
        guard text.contains("\0") || text.hasPrefix(marker) else { return text }
        return key(for: Data(text.utf8))
    }

    /// The bytes `key` stands for.
    public static func bytes(of key: String) -> Data {
        guard key.hasPrefix(marker), let bytes = Data(base64Encoded: String(key.dropFirst(marker.count))) else {
            return Data(key.utf8)
        }
        return bytes
    }

    /// `key` for messages: itself, or `0x` and hex for bytes that are no plain text (never
    /// the control character of the storage form).
    public static func shown(_ key: String) -> String {
        guard key.hasPrefix(marker) else { return key }
        return "0x" + hex(bytes(of: key))
    }

    /// `bytes` in lowercase hex, two digits a byte.
    public static func hex(_ bytes: Data) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The text `key` stands for (bytes that are not UTF-8 are repaired with U+FFFD).
    public static func text(of key: String) -> String {
        guard key.hasPrefix(marker) else { return key }
        return String(decoding: bytes(of: key), as: UTF8.self)
    }
}
