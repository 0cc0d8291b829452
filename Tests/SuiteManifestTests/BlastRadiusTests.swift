import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SharedKeychain
import Testing
@testable import SuiteManifest
import TokenCache

@Suite("Blast radius: who can destroy whose sign-in, from the manifest")
struct BlastRadiusTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    static let mail = "com.contoso.mail", calendar = "com.contoso.calendar", notes = "com.contoso.notes"

    /// An app keeping its cache in its own app-ID group, listing no keychain group.
    static func perAppApp(_ bundleID: String, family: String? = "1", appGroups: [String] = []) -> SuiteApp {
        let team = Fixture.team
        return SuiteApp(
            bundleID: bundleID, teamID: team, clientID: Fixture.clientID,
            redirectURI: RedirectURI.msalDefault(bundleID: bundleID),
            keychainGroup: try! AccessGroup(teamID: team, identifier: bundleID),
            familyID: family, usesBroker: true,
            entitlements: Entitlements(keychainAccessGroups: [], applicationGroups: appGroups, applicationIdentifier: "\(team.rawValue).\(bundleID)"),
            infoPlist: InfoPlist(bundleIdentifier: bundleID, urlSchemes: ["msauth.\(bundleID)"], queriesSchemes: ["msauth", "msauthv2"]))
    }

    @Test func oneSharedGroupAndClientIDExposesEveryPairToEveryCall() throws {
        let radius = try BlastRadius(Fixture.suite())
        #expect(radius.pairCount == 6)
        #expect(radius.cells.count == 6)
        for cell in radius.cells {
            #expect(cell.attacker != cell.victim, "an app's own sign-in is not counted")
            #expect(cell.calls == DestructiveCall.allCases, "\(cell.attacker) -> \(cell.victim): \(cell.calls)")
            #expect(cell.ways.allSatisfy { $0.group == "ABCDE12345.com.microsoft.adalcache" })
        }
        let remove = try #require(radius.ways(attacker: Self.mail, victim: Self.notes).first { $0.call == .removeAccount })
        #expect(remove.reason.contains("one client ID"))
        #expect(radius.ways(attacker: Self.mail, victim: Self.mail).isEmpty)
    }

    @Test func perAppGroupsWithTheBrokerGiveAnEmptyMatrix() throws {
        let suite = try Fixture.suite(apps: [
            Self.perAppApp(Self.mail, appGroups: ["group.com.contoso.shared"]),
            Self.perAppApp(Self.calendar),
            Self.perAppApp(Self.notes, family: nil, appGroups: ["group.com.contoso.shared"]),
        ])
        let radius = try BlastRadius(suite)
        #expect(radius.isEmpty, "\(radius.cells)")
        #expect(radius.apps.allSatisfy { $0.signsIn })
        #expect(radius.text.contains("no app can destroy another app's sign-in"))
    }

    @Test func thePerAppExampleSuiteLoadsAndShowsAnEmptyMatrix() throws {
        let suite = try SuiteManifest.load(from: Self.examples.appendingPathComponent("suite-per-app"))
        #expect(suite.apps.count == 3)
        let radius = try BlastRadius(suite)
        #expect(radius.isEmpty, "\(radius.cells)")
        // The shared example is the opposite: every pair exposed.
        let shared = try BlastRadius(SuiteManifest.load(from: Self.examples.appendingPathComponent("suite")))
        #expect(shared.cells.count == 6)
    }

    @Test func theMetadataRaceNeedsOneClientIDSpelledAlikeInOneGroup() throws {
        let lower = Fixture.clientID
        let upper = lower.uppercased()
        let other = "11111111-2222-3333-4444-555555555555"
        let suite = try Fixture.suite(apps: [
            Fixture.app(Self.mail, clientID: lower),
            Fixture.app(Self.calendar, clientID: lower),
            Fixture.app(Self.notes, clientID: upper),
            Fixture.app("com.contoso.tasks", clientID: other),
        ])
        let radius = try BlastRadius(suite)
        #expect(radius.ways(attacker: Self.mail, victim: Self.calendar).map(\.call).contains(.accountMetadataRace))
        #expect(radius.ways(attacker: Self.calendar, victim: Self.mail).map(\.call).contains(.accountMetadataRace))
        // The item's service is the client ID as passed: another spelling is another item...
        #expect(!radius.ways(attacker: Self.mail, victim: Self.notes).map(\.call).contains(.accountMetadataRace))
        // ...while removeAccount compares client IDs normalized.
        #expect(radius.ways(attacker: Self.mail, victim: Self.notes).map(\.call).contains(.removeAccount))
        let toTasks = radius.ways(attacker: Self.mail, victim: "com.contoso.tasks").map(\.call)
        #expect(toTasks == [.wipeCacheForAllAccounts, .wipeAccount, .ungroupedDelete], "no family, another client ID")
    }

    @Test func removeAccountReachesAnotherClientIDOnlyThroughItsFamily() throws {
        func app(_ bundleID: String, client: String, family: String?) -> SuiteApp {
            let base = Fixture.app(bundleID, clientID: client)
            return SuiteApp(bundleID: bundleID, teamID: base.teamID, clientID: client, redirectURI: base.redirectURI,
                            keychainGroup: base.keychainGroup, familyID: family, entitlements: base.entitlements, infoPlist: base.infoPlist)
        }
        let suite = try Fixture.suite(apps: [
            app(Self.mail, client: "11111111-0000-0000-0000-000000000001", family: "1"),
            app(Self.calendar, client: "11111111-0000-0000-0000-000000000002", family: "1"),
            app(Self.notes, client: "11111111-0000-0000-0000-000000000003", family: "2"),
        ])
        let radius = try BlastRadius(suite)
        let family = try #require(radius.ways(attacker: Self.mail, victim: Self.calendar).first { $0.call == .removeAccount })
        #expect(family.reason.contains("family 1"))
        #expect(family.reason.contains("wrote it last"))
        #expect(!radius.ways(attacker: Self.mail, victim: Self.notes).map(\.call).contains(.removeAccount))
        #expect(!radius.ways(attacker: Self.mail, victim: Self.calendar).map(\.call).contains(.accountMetadataRace))
    }

    @Test func anUngroupedDeleteReachesACacheGroupTheAttackerIsEntitledToButDoesNotUse() throws {
        let team = Fixture.team
        // Mail keeps its sign-in in a Contoso group of its own naming; Notes' SDK uses its app ID
        // but its entitlements list Mail's group too (for a shared item of its own).
        let mail = Fixture.app(Self.mail, keychainGroup: "com.contoso.shared")
        let notes = SuiteApp(
            bundleID: Self.notes, teamID: team, clientID: Fixture.clientID, redirectURI: RedirectURI.msalDefault(bundleID: Self.notes),
            keychainGroup: try AccessGroup(teamID: team, identifier: Self.notes),
            entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)\(Self.notes)", "$(AppIdentifierPrefix)com.contoso.shared"]),
            infoPlist: InfoPlist(bundleIdentifier: Self.notes, urlSchemes: ["msauth.\(Self.notes)"]))
        let radius = try BlastRadius(Fixture.suite(apps: [mail, notes]))
        let ways = radius.ways(attacker: Self.notes, victim: Self.mail)
        #expect(ways.map(\.call) == [.ungroupedDelete])
        #expect(ways.first?.group == "ABCDE12345.com.contoso.shared")
        #expect(ways.first?.reason.contains("although its SDK uses ABCDE12345.com.contoso.notes") == true)
        // Mail cannot reach Notes' app-ID group at all.
        #expect(radius.ways(attacker: Self.mail, victim: Self.notes).isEmpty)
        #expect(radius.cells.count == 1)
    }

    @Test func anAppNotEntitledToItsCacheGroupHasNoSignInToLoseAndWipesNothingThroughItsSDK() throws {
        let broken = Fixture.app(Self.calendar, entitlements: ["$(AppIdentifierPrefix)\(Self.calendar)"])
        let radius = try BlastRadius(Fixture.suite([Self.calendar: broken]))
        #expect(radius.apps.first { $0.bundleID == Self.calendar }?.signsIn == false)
        #expect(radius.cells.allSatisfy { $0.victim != Self.calendar && $0.attacker != Self.calendar })
        #expect(radius.cells.count == 2, "mail and notes still expose each other")
        #expect(radius.text.contains("not entitled to its cache group"))
    }

    @Test func unusableEntitlementsAreAnErrorNamingTheApp() throws {
        let foreign = Fixture.app(Self.notes, entitlements: ["ZZZZZ99999.com.microsoft.adalcache"])
        let error = #expect(throws: SuiteManifestError.self) { try BlastRadius(Fixture.suite([Self.notes: foreign])) }
        #expect(error?.description.contains(Self.notes) == true)
        #expect(error?.description.contains("ZZZZZ99999") == true)
    }

    @Test func theTextShowsTheMatrixWithLettersAndTheLegend() throws {
        let radius = try BlastRadius(Fixture.suite())
        let lines = radius.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let row = try #require(lines.first { $0.hasPrefix("1  com.contoso.mail") })
        #expect(row.split(separator: " ").suffix(3) == ["self", "WARDM", "WARDM"])
        for call in DestructiveCall.allCases {
            #expect(lines.contains { $0.hasPrefix("  \(call.code)  \(call.api): ") })
        }
        #expect(radius.text.contains("\n    com.contoso.mail -> com.contoso.calendar, com.contoso.notes\n"))
        #expect(lines.last { !$0.isEmpty } == "6 of 6 pairs exposed, 30 ways")
    }

    @Test func theJSONHasTheDocumentedKeys() throws {
        let radius = try BlastRadius(Fixture.suite())
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(radius)) as? [String: Any])
        #expect(Set(object.keys) == ["manifest", "suite", "apps", "calls", "cells", "summary", "empty"])
        let app = try #require((object["apps"] as? [[String: Any]])?.first)
        #expect(Set(app.keys) == ["app", "name", "keychain_group", "client_id", "family_id", "signs_in"])
        let cell = try #require((object["cells"] as? [[String: Any]])?.first)
        #expect(cell["attacker"] as? String == Self.mail)
        #expect(cell["victim"] as? String == Self.calendar)
        let way = try #require((cell["ways"] as? [[String: Any]])?.first)
        #expect(Set(way.keys) == ["call", "group", "reason"])
        #expect(way["call"] as? String == "wipe-cache-for-all-accounts")
        let summary = try #require(object["summary"] as? [String: Int])
        #expect(summary == ["apps": 3, "pairs": 6, "exposed_pairs": 6, "ways": 30])
        #expect((object["calls"] as? [[String: Any]])?.compactMap { $0["call"] as? String } == DestructiveCall.allCases.map(\.rawValue))
    }

    @Test func theSVGIsWellFormedWithOneCellPerPairNamingItsCalls() throws {
        let named = try Fixture.suite(apps: [
            Fixture.app(Self.mail), Fixture.app(Self.calendar), Fixture.app("com.contoso.a-b", clientID: "x&<y>"),
        ])
        for radius in [try BlastRadius(named), try BlastRadius(Fixture.suite(apps: [Self.perAppApp(Self.mail), Self.perAppApp(Self.notes)]))] {
            let parsed = try SVGStructure(radius.svg)
            let n = radius.apps.count
            #expect(parsed.root == "svg")
            #expect(parsed.selfCells == n)
            #expect(parsed.cells.count == n * (n - 1))
            for cell in radius.cells {
                #expect(parsed.cells["\(cell.attacker)>\(cell.victim)"] == cell.calls.map(\.rawValue))
            }
            let emptyCells = parsed.cells.values.filter(\.isEmpty).count
            #expect(emptyCells == n * (n - 1) - radius.cells.count)
            for call in DestructiveCall.allCases { #expect(parsed.text.contains(call.api)) }
        }
    }
}

/// What the SVG holds, read back with Foundation's XML parser: the root, the cells by
/// `attacker>victim` with their `data-call`s, the greyed diagonal, and all text.
private final class SVGStructure: NSObject, XMLParserDelegate {
    var root: String?
    var cells: [String: [String]] = [:]
    var selfCells = 0
    var text = ""
    private var current: String?

    init(_ svg: String) throws {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        guard parser.parse() else {
            throw parser.parserError ?? CocoaError(.fileReadCorruptFile)
        }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        if name == "g", attributes["class"] == "self" { selfCells += 1 }
        if name == "g", attributes["class"] == "cell", let attacker = attributes["data-attacker"], let victim = attributes["data-victim"] {
            current = "\(attacker)>\(victim)"
            cells[current ?? "", default: []] = []
        }
        if name == "text", let call = attributes["data-call"], let current { cells[current, default: []].append(call) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { current = nil }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
