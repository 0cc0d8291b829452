import KeychainStorage

/// Strings an app or a manifest controls, planted where text output shows them (issue 27,
/// finding 2): escape sequences, a newline that forges a line, a 4 MB value.
public enum HostileText {
    /// Clears the screen, then forges a second line that looks like the tool's own.
    public static let forging = "eve\u{1B}[2J\u{1B}[H\nlast wiped by com.contoso.mail at 2026-01-01T00:00:00Z"
    /// C1's CSI, a bidi override, the line separator and DEL.
    public static let unicode = "a\u{9B}31mb\u{202E}gnp.exe\u{2028}c\u{7F}"
    /// 4 MB: a value no terminal line should carry whole.
    public static let huge = String(repeating: "A", count: 4 << 20)

    /// Whether `text` holds no character ``DisplayText`` escapes; `lines: true` allows the
    /// newlines that are the output's own.
    public static func isInert(_ text: String, lines: Bool = false) -> Bool {
        text.unicodeScalars.allSatisfy { scalar in
            (lines && scalar == "\n") || DisplayText(String(scalar)).description == String(scalar)
        }
    }
}
