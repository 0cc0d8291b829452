/// Text that an item, a wipe record or a manifest controls, as text output shows it: any app of
/// a group can write an account name, a label or a bundle ID, so printing it raw lets that app
/// clear a terminal (escape sequences), forge lines (newlines) or flood it (megabytes).
///
/// Control characters (C0, DEL, C1), the bidirectional overrides, isolates and marks, and the
/// line and paragraph separators become visible escapes: `\0`, `\t`, `\n`, `\r`, `\e` (ESC),
/// and `\u{HEX}` for the rest (`\u{7F}`, `\u{9B}`, `\u{202E}`). A backslash stays as it is, so
/// the escaping is its own fixed point and a message made of escaped values can be escaped
/// again unchanged; `--json` gives the exact value. A value longer than ``limit`` characters
/// (after escaping) is cut, and says its length: `first characters…(4194304 chars)`, at most
/// ``limit`` characters in all, so cutting twice changes nothing either.
public struct DisplayText: CustomStringConvertible, Sendable, Hashable {
    /// The cap for one value in text output: a table column, a name in a message.
    public static let defaultLimit = 200

    /// The value as stored.
    public let value: String
    /// The most characters ``description`` has; `Int.max` escapes without cutting.
    public let limit: Int

    public init(_ value: String, limit: Int = DisplayText.defaultLimit) {
        self.value = value
        self.limit = max(limit, 32)
    }

    /// The value as text output shows it: escaped, and cut when it is longer than ``limit``.
    public var description: String {
        var shown = ""
        var count = 0
        for scalar in value.unicodeScalars {
            let piece = Self.escape(scalar)
            count += piece.map(\.count) ?? 1
            // Stop early: a 4 MB value is never escaped whole only to be cut.
            if count > limit { return Self.cut(value, limit: limit) }
            if let piece { shown += piece } else { shown.unicodeScalars.append(scalar) }
        }
        return shown
    }

    /// The first characters of `value`, escaped, and its length, in at most `limit` characters.
    private static func cut(_ value: String, limit: Int) -> String {
        let suffix = "…(\(value.count) chars)"
        let room = limit - suffix.count
        var shown = ""
        var count = 0
        for scalar in value.unicodeScalars {
            let piece = escape(scalar) ?? String(scalar)
            guard count + piece.count <= room else { break }
            count += piece.count
            shown += piece
        }
        return shown + suffix
    }

    /// The visible escape of `scalar`, or nil when it is shown as itself.
    static func escape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x00: "\\0"
        case 0x09: "\\t"
        case 0x0A: "\\n"
        case 0x0D: "\\r"
        case 0x1B: "\\e"
        case 0x01...0x1F, 0x7F...0x9F,
            // Arabic letter mark; left-to-right and right-to-left marks.
            0x061C, 0x200E, 0x200F,
            // Line and paragraph separators; embeddings, overrides and their pop.
            0x2028...0x202E,
            // Isolates and their pop.
            0x2066...0x2069:
            "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default: nil
        }
    }
}
