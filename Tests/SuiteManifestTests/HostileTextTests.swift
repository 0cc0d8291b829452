import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SharedKeychain
import Testing
@testable import SuiteManifest

/// A manifest's names and client IDs as `suite check` and `suite blast-radius` show them (issue
/// 27, finding 2): text escaped and cut, the SVG well-formed XML with the same escapes, the
/// JSON exact.
@Suite("Suite reports: hostile text from the manifest")
struct SuiteHostileTextTests {
    static let forging = "Mail\u{1B}[2J\u{1B}[H\nerror  forged-rule: this line is not the checker's"
    static let clientID = "client\u{1B}]0;pwned\u{7}\u{202E}"
    static let huge = String(repeating: "N", count: 4 << 20)

    func isInert(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0 == "\n" || DisplayText(String($0)).description == String($0) }
    }

    func app(_ bundleID: String, name: String, clientID: String = clientID) -> SuiteApp {
        let fixture = Fixture.app(bundleID, clientID: clientID)
        return SuiteApp(
            name: name, bundleID: bundleID, teamID: fixture.teamID, clientID: clientID, redirectURI: fixture.redirectURI,
            keychainGroup: fixture.keychainGroup, familyID: "1\u{1B}[31m", entitlements: fixture.entitlements, infoPlist: fixture.infoPlist)
    }

    var suite: Suite {
        get throws {
            try Suite(manifest: URL(fileURLWithPath: "/suites/evil/suite.yaml"), name: Self.forging, apps: [
                app("com.contoso.mail", name: Self.forging),
                app("com.contoso.calendar", name: Self.huge),
                app("com.contoso.notes", name: "Notes", clientID: "other\u{1B}[2J\n" + Self.huge),
            ])
        }
    }

    @Test func checkReportEscapesAndCutsWhatTheManifestSays() throws {
        let report = SuiteChecker.check(try suite)
        let text = report.text
        #expect(isInert(text))
        #expect(!text.contains("\nerror  forged-rule"), "no line forged by a name")
        #expect(text.contains(#"Mail\e[2J\e[H\nerror  forged-rule"#))
        #expect(text.count < 20_000, "4 MB values are cut: \(text.count) characters")
        // The findings' JSON names the app by its exact bundle ID and quotes the values escaped in its sentences.
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any]
        let apps = try #require(json?["apps"] as? [[String: Any]])
        #expect(apps.compactMap { $0["name"] as? String }.contains(Self.huge))
    }

    @Test func blastRadiusTextAndSVGEscapeAndCut() throws {
        let radius = try BlastRadius(try suite)
        #expect(isInert(radius.text))
        #expect(!radius.text.contains("\nerror  forged-rule"))
        #expect(radius.text.contains("…(4194304 chars)"))
        #expect(radius.text.count < 40_000)
        let svg = radius.svg
        #expect(isInert(svg))
        #expect(svg.count < 60_000)
        #expect(svg.contains(#"Mail\e[2J\e[H\nerror  forged-rule"#))
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "the SVG is well-formed XML: \(String(describing: parser.parserError))")
        #expect(!radius.text.contains("\u{1B}") && !svg.contains("\u{7}"))
    }
}
