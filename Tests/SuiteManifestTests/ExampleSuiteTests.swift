import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

@Suite("suite init's example suite")
struct ExampleSuiteTests {
    @Test func examplePassesTheCheckWithNoFindings() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let written = try ExampleSuite.write(to: scratch.url)
        #expect(written.first?.lastPathComponent == "suite.yaml")

        let suite = try SuiteManifest.load(from: scratch.url)
        #expect(suite.apps.map(\.bundleID) == ["com.contoso.mail", "com.contoso.calendar", "com.contoso.notes"])
        #expect(Set(suite.apps.map(\.clientID)).count == 1)
        #expect(suite.apps.map(\.familyID) == ["1", "1", nil])
        #expect(suite.apps.map(\.usesBroker) == [true, true, false])
        let report = SuiteChecker.check(suite)
        #expect(report.findings == [], "\(report.text)")
        #expect(report.summaryLine == "0 errors, 0 warnings")
    }

    @Test func exampleWritesRealXMLPlists() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        try ExampleSuite.write(to: scratch.url)
        for folder in ["mail", "calendar", "notes"] {
            let entitlementsURL = scratch.url.appendingPathComponent("\(folder)/entitlements.plist")
            let infoURL = scratch.url.appendingPathComponent("\(folder)/Info.plist")
            #expect(try String(contentsOf: entitlementsURL, encoding: .utf8).hasPrefix("<?xml"))
            #expect(try String(contentsOf: infoURL, encoding: .utf8).contains("<key>CFBundleURLSchemes</key>"))
            let entitlements = try Entitlements(contentsOf: entitlementsURL)
            #expect(entitlements.keychainAccessGroups.last == "$(AppIdentifierPrefix)com.microsoft.adalcache")
            let info = try InfoPlist(contentsOf: infoURL).resolvingBuildVariables(bundleID: "com.contoso.\(folder)")
            #expect(info.urlSchemes == ["msauth.com.contoso.\(folder)"])
        }
        let mail = try InfoPlist(contentsOf: scratch.url.appendingPathComponent("mail/Info.plist"))
        #expect(mail.queriesSchemes == ["msauth", "msauthv2"])
    }

    @Test func refusesToOverwriteAndWritesNothing() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        // One file in the way is enough; the others must not be written either.
        let mine = try scratch.write("notes/Info.plist", "mine")
        let error = #expect(throws: ExampleSuiteError.self) { try ExampleSuite.write(to: scratch.url) }
        #expect(error == .wouldOverwrite(directory: scratch.url.path, files: ["notes/Info.plist"]))
        #expect(error?.description.contains("allow overwriting to replace them") == true)
        #expect(error?.status == .param)
        #expect(try String(contentsOf: mine, encoding: .utf8) == "mine")
        #expect(!FileManager.default.fileExists(atPath: scratch.url.appendingPathComponent("suite.yaml").path))

        try ExampleSuite.write(to: scratch.url, force: true)
        #expect(try InfoPlist(contentsOf: mine).urlSchemes == ["msauth.$(PRODUCT_BUNDLE_IDENTIFIER)"])
    }

    @Test func secondInitListsEveryExistingFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        try ExampleSuite.write(to: scratch.url)
        let error = #expect(throws: ExampleSuiteError.self) { try ExampleSuite.write(to: scratch.url) }
        guard case .wouldOverwrite(_, let files) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(files == (try ExampleSuite.files()).map(\.path))
        #expect(files.count == 7)
    }

    @Test func createsMissingDirectoriesButNotOverAFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let nested = scratch.url.appendingPathComponent("a/b/suite")
        try ExampleSuite.write(to: nested)
        #expect(try SuiteManifest.load(from: nested).apps.count == 3)

        let file = try scratch.write("taken", "x")
        #expect(throws: ExampleSuiteError.notADirectory(file.path)) { try ExampleSuite.write(to: file) }
    }
}
