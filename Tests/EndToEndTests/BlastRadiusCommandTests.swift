import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// `suite blast-radius` as a user runs it on the examples: the table, the JSON, the SVG file,
/// and bad input refused with nothing written.
@Suite("End to end: suite blast-radius")
struct BlastRadiusCommandTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")
    static let shared = examples.appendingPathComponent("suite").path
    static let perApp = examples.appendingPathComponent("suite-per-app").path

    @Test func theTableShowsEveryPairOfTheSharedSuiteAndNoneOfThePerAppSuite() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let shared = try cli.run(["suite", "blast-radius", "--suite", Self.shared])
        #expect(shared.status == 0, "\(shared.standardError)")
        let rows = shared.output.split(separator: "\n").filter { $0.hasPrefix("1  ") || $0.hasPrefix("2  ") || $0.hasPrefix("3  ") }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.split(separator: " ").suffix(3).filter { $0 == "WARDM" }.count == 2 }, "\(rows)")
        #expect(shared.output.contains("\n    Contoso Calendar -> Contoso Mail, Contoso Notes\n"))
        #expect(shared.output.contains("6 of 6 pairs exposed, 30 ways"))

        let perApp = try cli.run(["suite", "blast-radius", "--suite", Self.perApp])
        #expect(perApp.status == 0, "\(perApp.standardError)")
        #expect(perApp.output.contains("no app can destroy another app's sign-in"))
        #expect(perApp.output.contains("0 of 6 pairs exposed, 0 ways"))
        #expect(!perApp.output.contains(" -> "))
    }

    @Test func theJSONFollowsTheDocumentedSchema() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let shared = try cli.run(["suite", "blast-radius", "--suite", Self.shared, "--json"]).jsonObject()
        #expect(Set(shared.keys) == ["manifest", "suite", "apps", "calls", "cells", "summary", "empty"])
        #expect(shared["empty"] as? Bool == false)
        let cells = try #require(shared["cells"] as? [[String: Any]])
        #expect(cells.count == 6)
        for cell in cells {
            #expect(cell["attacker"] as? String != cell["victim"] as? String)
            let calls = (cell["ways"] as? [[String: Any]])?.compactMap { $0["call"] as? String }
            #expect(calls == ["wipe-cache-for-all-accounts", "wipe-account", "remove-account", "ungrouped-delete", "account-metadata-race"])
        }
        #expect((shared["calls"] as? [[String: Any]])?.compactMap { $0["code"] as? String } == ["W", "A", "R", "D", "M"])

        let perApp = try cli.run(["suite", "blast-radius", "--suite", Self.perApp, "--json"]).jsonObject()
        #expect(perApp["empty"] as? Bool == true)
        #expect((perApp["cells"] as? [Any])?.isEmpty == true)
        #expect((perApp["summary"] as? [String: Int])?["pairs"] == 6)
        #expect((perApp["apps"] as? [[String: Any]])?.compactMap { $0["keychain_group"] as? String }
            == ["ABCDE12345.com.contoso.mail", "ABCDE12345.com.contoso.calendar", "ABCDE12345.com.contoso.notes"])
    }

    @Test func outputWritesAWellFormedSVGMatrixOwnerOnly() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let file = cli.fixtures.appendingPathComponent("out/blast.svg")
        let run = try cli.run(["suite", "blast-radius", "--suite", Self.shared, "--output", file.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.output.contains("WARDM"), "the table is still printed")
        #expect(run.standardError.contains(file.path))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

        let svg = try SVGCells(Data(contentsOf: file))
        #expect(svg.root == "svg")
        #expect(svg.cells.count == 6)
        #expect(svg.cells.values.allSatisfy { $0 == ["wipe-cache-for-all-accounts", "wipe-account", "remove-account", "ungrouped-delete", "account-metadata-race"] })
        #expect(svg.text.contains("wipeCacheForAllAccounts"))
        #expect(svg.text.contains("Contoso Calendar"))
    }

    @Test func aBadOutputPathIsRefusedBeforeAnythingIsWritten() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let directory = cli.fixtures.appendingPathComponent("a-directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let fifo = cli.fixtures.appendingPathComponent("a-fifo").path
        try #require(mkfifo(fifo, 0o600) == 0)
        let target = cli.fixtures.appendingPathComponent("target")
        try Data("original".utf8).write(to: target)
        let link = cli.fixtures.appendingPathComponent("a-link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.path)
        for path in [directory.path, fifo, link] {
            let run = try cli.run(["suite", "blast-radius", "--suite", Self.shared, "--output", path])
            #expect(run.status == 10, "\(path): \(run.standardError)")
            #expect(run.standardError.contains("--output"))
            #expect(run.standardError.contains("not a regular file"))
            #expect(run.output.isEmpty, "nothing is printed either")
        }
        #expect(try String(contentsOf: target, encoding: .utf8) == "original")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.fixtures.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func badManifestsAreClearErrorsAndWriteNothing() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let svg = cli.fixtures.appendingPathComponent("never.svg")
        let missing = try cli.run(["suite", "blast-radius", "--suite", cli.fixtures.appendingPathComponent("nope").path, "--output", svg.path])
        #expect(missing.status == 10)
        #expect(missing.standardError.contains("nope"))
        #expect(missing.standardError.contains("no such file or directory"))

        // An app entitled to another team's group: named with its file and field.
        let manifest = cli.fixtures.appendingPathComponent("suite.yaml")
        var text = try String(contentsOfFile: Self.perApp + "/suite.yaml", encoding: .utf8)
        text = text.replacingOccurrences(of: "    entitlements: []\n", with: "    entitlements: [ZZZZZ99999.com.microsoft.adalcache]\n")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let foreign = try cli.run(["suite", "blast-radius", "--suite", manifest.path, "--output", svg.path, "--json"])
        #expect(foreign.status == 10)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(foreign.standardError.utf8)) as? [String: Any])
        let message = try #require((error["error"] as? [String: Any])?["message"] as? String)
        #expect(message.contains("com.contoso.calendar"))
        #expect(message.contains("ZZZZZ99999"))
        #expect(message.contains("entitlements"))
        #expect(foreign.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: svg.path))
    }
}

/// The SVG read back with Foundation's XML parser: its root, its cells by `attacker>victim`
/// with their `data-call`s, and all its text.
private final class SVGCells: NSObject, XMLParserDelegate {
    var root: String?
    var cells: [String: [String]] = [:]
    var text = ""
    private var current: String?

    init(_ data: Data) throws {
        super.init()
        let parser = XMLParser(data: data)
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.fileReadCorruptFile) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        if root == nil { root = name }
        if name == "g", attributes["class"] == "cell", let attacker = attributes["data-attacker"], let victim = attributes["data-victim"] {
            current = "\(attacker)>\(victim)"
            cells["\(attacker)>\(victim)"] = []
        }
        if name == "text", let call = attributes["data-call"], let current { cells[current, default: []].append(call) }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "g" { current = nil }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}
