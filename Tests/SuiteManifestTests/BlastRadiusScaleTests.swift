import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import SuiteManifest

@Suite("Blast radius of a large suite: grouped by exposure, the SVG a readable page")
struct BlastRadiusScaleTests {
    /// The generated suite of `apps` apps (`suite init --apps`), loaded from its manifest.
    static func generated(_ apps: Int) throws -> BlastRadius {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        try ExampleSuite.writeGenerated(apps: apps, to: scratch.url)
        return try BlastRadius(SuiteManifest.load(from: scratch.url))
    }

    @Test func theGeneratedSuiteLoadsWithEveryKindOfApp() throws {
        let radius = try Self.generated(20)
        #expect(radius.apps.count == 20)
        #expect(radius.apps[6].clientID == ExampleSuite.clientID)
        #expect(radius.apps[7].clientID == ExampleSuite.generatedSecondClientID)
        #expect(radius.apps[8].keychainGroup == "\(ExampleSuite.teamID).com.contoso.app9")
        // The per-app app with the broker is safe; the one listing the shared group is not.
        #expect(radius.cells.allSatisfy { $0.victim != "com.contoso.app9" && $0.attacker != "com.contoso.app9" })
        #expect(radius.ways(attacker: "com.contoso.app10", victim: "com.contoso.app1").map(\.call) == [.ungroupedDelete])
    }

    @Test func everyPairHasTheCallsOfItsGroupsBlock() throws {
        let radius = try Self.generated(60)
        let groups = radius.exposureGroups
        #expect(Set(groups.members.flatMap { $0 }) == Set(radius.apps.indices))
        #expect(groups.members.flatMap { $0 }.count == radius.apps.count)
        // Six kinds of app, of which the per-app ones with the broker and with the shared group
        // listed are alike among themselves: far fewer groups than apps.
        #expect(groups.members.count <= 6, "\(groups.members.map(\.count))")
        for (attacker, attackerApp) in radius.apps.enumerated() {
            for (victim, victimApp) in radius.apps.enumerated() where victim != attacker {
                let block = groups.calls(attacker: groups.groupOfApp[attacker], victim: groups.groupOfApp[victim])
                #expect(block == radius.ways(attacker: attackerApp.bundleID, victim: victimApp.bundleID).map(\.call))
            }
        }
    }

    @Test func appsAloneInTheirExposureAreGroupsOfOne() throws {
        // Mail and Calendar share a group and client ID; Tasks has a client ID of its own, so
        // it is exposed to fewer calls and is a group by itself.
        let suite = try Fixture.suite(apps: [
            Fixture.app("com.contoso.mail"), Fixture.app("com.contoso.calendar"),
            Fixture.app("com.contoso.tasks", clientID: "11111111-2222-3333-4444-555555555555"),
        ])
        let groups = try BlastRadius(suite).exposureGroups
        #expect(groups.members == [[0, 1], [2]])
        #expect(groups.calls(attacker: 0, victim: 0) == DestructiveCall.allCases)
        #expect(groups.calls(attacker: 1, victim: 1).isEmpty, "a group of one app: only itself")
        #expect(!groups.calls(attacker: 0, victim: 1).contains(.accountMetadataRace))
    }

    @Test func aLargeSuitesSVGIsDrawnByGroupsAndStaysSmall() throws {
        let radius = try Self.generated(200)
        let svg = radius.svg
        // Drawn per app, 200 apps took 22 MB.
        #expect(svg.utf8.count < 100_000, "\(svg.utf8.count) bytes")
        let parsed = try GroupedSVG(svg)
        let groups = radius.exposureGroups
        #expect(parsed.groups.count == groups.members.count)
        #expect(parsed.groups.values.flatMap { $0 }.sorted() == radius.apps.map(\.bundleID).sorted())
        for row in groups.members.indices {
            for column in groups.members.indices {
                let calls = groups.calls(attacker: row, victim: column).map(\.rawValue)
                #expect(parsed.blocks["G\(row + 1)>G\(column + 1)"] ?? [] == calls)
            }
        }
        for call in DestructiveCall.allCases { #expect(parsed.text.contains(call.api)) }
    }

    @Test func upToTwelveAppsTheSVGHasARowPerApp() throws {
        let twelve = try GroupedSVG(Self.generated(BlastRadius.svgAppRowLimit).svg)
        #expect(twelve.groups.isEmpty && twelve.blocks.isEmpty)
        let thirteen = try GroupedSVG(Self.generated(BlastRadius.svgAppRowLimit + 1).svg)
        #expect(!thirteen.groups.isEmpty)
    }

    @Test func textAndJSONStillListEveryPair() throws {
        let radius = try Self.generated(100)
        let matrixRows = radius.text.split(separator: "\n").filter { $0.contains("(com.contoso.app") }
        #expect(matrixRows.count == 100)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(radius)) as? [String: Any]
        #expect((json?["cells"] as? [Any])?.count == radius.cells.count)
        // Every cell found again by its pair.
        for cell in radius.cells { #expect(radius.ways(attacker: cell.attacker, victim: cell.victim) == cell.ways) }
    }
}

/// A grouped SVG read back with Foundation's XML parser: its blocks by `G<row>>G<column>` with
/// their `data-call`s, each group's apps, and all text.
private final class GroupedSVG: NSObject, XMLParserDelegate {
    var blocks: [String: [String]] = [:]
    var groups: [String: [String]] = [:]
    var text = ""
    private var current: String?

    init(_ svg: String) throws {
        super.init()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if name == "g", attributes["class"] == "block", let attacker = attributes["data-attacker-group"], let victim = attributes["data-victim-group"] {
            current = "\(attacker)>\(victim)"
            blocks[current ?? "", default: []] = []
        }
        if name == "g", attributes["class"] == "group", let group = attributes["data-group"] {
            groups[group] = attributes["data-apps"]?.split(separator: " ").map(String.init) ?? []
        }
        if name == "text", let call = attributes["data-call"], let current { blocks[current, default: []].append(call) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { current = nil }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
