import Foundation
import KeychainStorage
import KeychainTestSupport
import Testing
@testable import SharedKeychain

@Suite("Text output: the DisplayText convention")
struct DisplayTextTests {
    @Test func controlCharactersBecomeVisibleEscapes() {
        #expect(DisplayText("a\u{1B}[2J\nb\tc\rd\0e").description == #"a\e[2J\nb\tc\rd\0e"#)
        #expect(DisplayText("\u{1}\u{1F}\u{7F}\u{80}\u{9B}\u{9F}").description == #"\u{1}\u{1F}\u{7F}\u{80}\u{9B}\u{9F}"#)
        #expect(DisplayText("\u{202E}\u{202A}\u{2066}\u{2069}\u{200E}\u{200F}\u{061C}").description
            == #"\u{202E}\u{202A}\u{2066}\u{2069}\u{200E}\u{200F}\u{61C}"#)
        #expect(DisplayText("line\u{2028}para\u{2029}").description == #"line\u{2028}para\u{2029}"#)
    }

    @Test func ordinaryTextIsUnchanged() {
        for text in ["alice@contoso.com", "Contoso Mail", "DOMAIN\\user", "Zoë 日本 😀", "", String(repeating: "x", count: 200)] {
            #expect(DisplayText(text).description == text)
        }
    }

    @Test func longValuesAreCutAndSayTheirLength() {
        let shown = DisplayText(HostileText.huge).description
        #expect(shown.count <= DisplayText.defaultLimit)
        #expect(shown.hasPrefix("AAAA"))
        #expect(shown.hasSuffix("…(4194304 chars)"))
        let escaped = DisplayText(String(repeating: "\u{1B}", count: 500)).description
        #expect(escaped.hasSuffix("…(500 chars)"))
        // An escape is never split by the cut.
        #expect(escaped.hasPrefix(#"\e\e"#) && escaped.dropLast("…(500 chars)".count).count % 2 == 0)
        #expect(DisplayText(String(repeating: "y", count: 201)).description.hasSuffix("…(201 chars)"))
        #expect(DisplayText(HostileText.huge, limit: .max).description == HostileText.huge)
    }

    @Test func showingTwiceChangesNothing() {
        for text in [HostileText.forging, HostileText.unicode, HostileText.huge] {
            let once = DisplayText(text).description
            #expect(DisplayText(once).description == once)
            #expect(DisplayText(once, limit: .max).description == once)
            #expect(HostileText.isInert(once))
        }
    }
}

@Suite("Text output: messages that quote hostile values")
struct HostileMessageTests {
    let key = PrimaryKey(group: "ABCDE12345.com.microsoft.adalcache", account: HostileText.forging, service: HostileText.huge)

    @Test func errorsQuoteItemValuesEscapedAndCut() {
        let messages = [
            KeychainError.duplicateItem(key).message,
            KeychainError.storage(.versionConflict(key, expected: 1, found: 2)).message,
            KeychainError.itemNotFound(query: KeychainQuery(account: HostileText.forging, service: HostileText.unicode).description).message,
            KeychainError.missingEntitlement(group: HostileText.forging, app: "com.contoso.mail", entitled: []).message,
            AccessGroupError.invalidBundleID(HostileText.huge).description,
            AccessGroupError.malformedGroup(entry: HostileText.forging, reason: "bad").description,
        ]
        for message in messages {
            #expect(HostileText.isInert(message), "\(message.prefix(300))")
            #expect(message.count < 1000, "a 4 MB value is cut: \(message.prefix(300))")
        }
        #expect(KeychainError.duplicateItem(key).message.contains(#"eve\e[2J\e[H\nlast wiped by"#))
        #expect(KeychainError.duplicateItem(key).message.contains("…(4194304 chars)"))
    }

    @Test func itemEventsAndInternetAttributesAreEscaped() {
        var internet = InternetAttributes()
        internet.server = HostileText.forging
        internet.path = HostileText.huge
        #expect(HostileText.isInert(internet.description))
        let event = ItemEvent(kind: .created, group: "G", account: HostileText.unicode, service: "s", addedBy: HostileText.forging, time: Date())
        #expect(HostileText.isInert(event.description))
        #expect(event.description.contains(#"\u{202E}"#))
    }
}
