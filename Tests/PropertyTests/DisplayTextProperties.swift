import Foundation
import KeychainStorage
import PropertyBased
import Testing

/// Whatever an app writes into an item, text output shows it inert and bounded (issue 27,
/// finding 2): no control character, bidi override or line separator survives ``DisplayText``,
/// the result is at most its limit, showing it again changes nothing, and plain short text is
/// shown as it is.
@Suite("Properties: text output of hostile strings")
struct DisplayTextProperties {
    /// Scalars biased towards the hard cases: C0, DEL, C1, bidi controls, separators, combining
    /// marks, backslashes, and plain or wide text.
    static let pool: [Unicode.Scalar] = [
        "\u{0}", "\u{7}", "\u{9}", "\u{A}", "\u{D}", "\u{1B}", "\u{1F}", "\u{7F}", "\u{85}", "\u{9B}", "\u{9F}",
        "\u{61C}", "\u{200E}", "\u{200F}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}",
        "\u{301}", "\\", "[", "a", "Z", "0", " ", "é", "日", "😀", "…", "(",
    ]

    static let strings = Gen.uint64(in: 0...UInt64.max).array(of: 0...80).map { words -> String in
        var text = ""
        for word in words {
            // Now and then a long run, so cuts happen at every kind of scalar.
            let repeats = word % 11 == 0 ? Int((word >> 40) % 97) + 1 : 1
            let scalar = pool[Int(word % UInt64(pool.count))]
            for _ in 0..<repeats { text.unicodeScalars.append(scalar) }
        }
        return text
    }

    @Test func shownTextIsInertBoundedAndStable() {
        SeededProperty.check("display text", count: 3000, input: Self.strings) { text in
            for limit in [40, DisplayText.defaultLimit] {
                let shown = DisplayText(text, limit: limit).description
                #expect(shown.unicodeScalars.allSatisfy { !Self.escaped($0) }, "\(shown.debugDescription)")
                #expect(shown.unicodeScalars.count <= limit)
                #expect(DisplayText(shown, limit: limit).description == shown)
                if !text.unicodeScalars.contains(where: Self.escaped), text.unicodeScalars.count <= limit {
                    #expect(shown == text)
                }
                if shown != text, shown.hasSuffix("chars)") {
                    #expect(shown.hasSuffix("…(\(text.count) chars)"))
                }
            }
        }
    }

    /// The convention's set, written out apart from the implementation.
    static func escaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
