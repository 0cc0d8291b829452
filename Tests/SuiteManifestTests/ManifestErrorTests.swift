import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

@Suite("Bad manifests: errors name the file, the field and the app")
struct ManifestErrorTests {
    /// A valid one-app entry; tests replace or add lines.
    static func entry(_ lines: [String: String?] = [:], bundleID: String = "com.contoso.mail") -> String {
        var fields: [(String, String?)] = [
            ("bundle_id", bundleID),
            ("team_id", "ABCDE12345"),
            ("client_id", "7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d"),
            ("redirect_uri", "msauth.\(bundleID)://auth"),
            ("entitlements", "[$(AppIdentifierPrefix)com.microsoft.adalcache]"),
            ("info_plist", "{CFBundleURLTypes: [{CFBundleURLSchemes: [msauth.\(bundleID)]}]}"),
        ]
        for (key, value) in lines {
            if let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = value } else { fields.append((key, value)) }
        }
        let body = fields.compactMap { key, value in value.map { "    \(key): \($0)" } }
        return "  - " + body.joined(separator: "\n").dropFirst(4)
    }

    /// Loads `yaml` written as suite.yaml in a scratch directory (with `files` beside it).
    func load(_ yaml: String, files: [String: Data] = [:]) throws -> (SuiteManifestError?, String) {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try scratch.write("suite.yaml", yaml)
        for (name, data) in files { try scratch.write(name, data) }
        let error = #expect(throws: SuiteManifestError.self) { try SuiteManifest.load(from: manifest) }
        #expect(error?.status == .param)
        return (error, manifest.path)
    }

    /// A "billion laughs": 554 bytes whose aliases repeat each other expand to 9^12 values.
    static var aliasBomb: String {
        var lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
        for level in 1...12 {
            let previous = level == 1 ? "a" : "l\(level - 1)"
            lines.append("l\(level): &l\(level) [" + Array(repeating: "*\(previous)", count: 9).joined(separator: ", ") + "]")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func yamlAliasBombIsRefusedBeforeItExpands() throws {
        let (error, _) = try load(Self.aliasBomb)
        guard case .malformed(_, let reason) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("expands to more than 1000000 values"))
    }

    @Test func tooManyAliasesAndTooDeepNestingAreRefused() throws {
        let anchors = "a: &a x\nb: [" + Array(repeating: "*a", count: 1_500).joined(separator: ", ") + "]\n"
        let (aliases, _) = try load(anchors)
        #expect(aliases.map { "\($0)" }?.contains("more than 1000 YAML aliases") == true)
        let deep = "apps: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n"
        let (nested, _) = try load(deep)
        #expect(nested.map { "\($0)" }?.contains("nested more than 64 levels") == true)
    }

    @Test func manifestOverTheSizeLimitIsRefusedUnread() throws {
        let (error, _) = try load("# " + String(repeating: "x", count: 64 << 20) + "\n")
        #expect(error.map { "\($0)" }?.contains("the limit is 67108864") == true)
    }

    @Test func missingFieldNamesFileFieldAndApp() throws {
        let yaml = "apps:\n\(Self.entry())\n\(Self.entry(["client_id": nil], bundleID: "com.contoso.calendar"))\n"
        let (error, path) = try load(yaml)
        guard case .missingField(let location) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location == ManifestLocation(file: path, field: "apps[1].client_id", app: "com.contoso.calendar", line: 8))
        #expect(error?.description.contains("\(path):8: apps[1].client_id (app com.contoso.calendar)") == true)
    }

    @Test func missingBundleIDNamesTheEntry() throws {
        let (error, path) = try load("apps:\n\(Self.entry(["bundle_id": nil]))\n")
        #expect(error == .missingField(ManifestLocation(file: path, field: "apps[0].bundle_id", line: 2)))
    }

    @Test func wrongTypesSayWhatWasFound() throws {
        var (error, path) = try load("apps:\n\(Self.entry(["broker": "\"yes please\""]))\n")
        #expect(error == .wrongType(ManifestLocation(file: path, field: "apps[0].broker", app: "com.contoso.mail", line: 8),
                                    expected: "true or false", found: "a string"))
        (error, path) = try load("apps:\n\(Self.entry(["redirect_uri": "[a, b]"]))\n")
        #expect(error?.description.contains("apps[0].redirect_uri (app com.contoso.mail): must be text, but it is a list") == true)
        (error, path) = try load("apps:\n\(Self.entry(["client_id": "true"]))\n")
        #expect(error?.description.contains("must be text (in YAML, quote it), but it is a boolean") == true)
        (error, path) = try load("apps:\n\(Self.entry(["entitlements": "42"]))\n")
        #expect(error?.description.contains("a path to an entitlements.plist, a list of keychain-access-groups entries, or a mapping") == true)
        (error, path) = try load("apps: {mail: 1}\n")
        #expect(error == .wrongType(ManifestLocation(file: path, field: "apps", line: 1), expected: "a list", found: "a mapping"))
    }

    @Test func typosAreUnknownFields() throws {
        var (error, path) = try load("apps:\n\(Self.entry(["redirect_url": "x"]))\n")
        guard case .unknownField(let location, let known) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location.field == "apps[0].redirect_url")
        #expect(location.file == path)
        #expect(known.contains("redirect_uri"))
        (error, _) = try load("aps: []\n")
        #expect(error?.description.contains("aps: unknown field; the known ones here are name, registered_redirect_uris, apps") == true)
        (error, _) = try load("apps:\n\(Self.entry(["info_plist": "{CFBundleURLSchemes: [x]}"]))\n")
        #expect(error?.description.contains("apps[0].info_plist.CFBundleURLSchemes (app com.contoso.mail): unknown field") == true)
    }

    @Test func invalidValuesSayWhy() throws {
        var (error, path) = try load("apps:\n\(Self.entry(["team_id": "abcde12345"]))\n")
        #expect(error == .invalidValue(ManifestLocation(file: path, field: "apps[0].team_id", app: "com.contoso.mail", line: 3),
                                       value: "abcde12345", reason: "a team ID is 10 upper-case letters or digits, like 'ABCDE12345'"))
        (error, _) = try load("apps:\n\(Self.entry(bundleID: "com contoso"))\n")
        #expect(error?.description.contains("apps[0].bundle_id (app com contoso): 'com contoso' is not valid") == true)
        (error, _) = try load("apps:\n\(Self.entry(["keychain_group": "ABCDE12345.com.microsoft.adalcache"]))\n")
        #expect(error?.description.contains("without the team prefix") == true)
        (error, _) = try load("apps:\n\(Self.entry(["keychain_group": "com..cache"]))\n")
        #expect(error?.description.contains("apps[0].keychain_group") == true)
        (error, _) = try load("apps:\n\(Self.entry(["client_id": "\"  \""]))\n")
        #expect(error?.description.contains("must not be empty") == true)
    }

    @Test func duplicateBundleIDsAndEmptySuitesAreRefused() throws {
        var (error, path) = try load("apps:\n\(Self.entry())\n\(Self.entry(bundleID: "COM.contoso.MAIL"))\n")
        guard case .duplicateBundleID(let location, let first) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location.field == "apps[1].bundle_id")
        #expect(first == "apps[0]")
        (error, path) = try load("apps: []\n")
        #expect(error == .noApps(ManifestLocation(file: path, field: "apps", line: 1)))
        (error, path) = try load("# nothing yet\n")
        #expect(error == .noApps(ManifestLocation(file: path, field: "apps")))
    }

    @Test func malformedSyntaxNamesTheFile() throws {
        let (error, path) = try load("apps:\n  - bundle_id: [unclosed\n")
        guard case .malformed(let location, let reason) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location.file == path)
        #expect(reason.hasPrefix("not valid YAML"))
        #expect(!reason.contains("\n"))

        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let json = try scratch.write("suite.json", "{\"apps\": [}")
        let jsonError = #expect(throws: SuiteManifestError.self) { try SuiteManifest.load(from: json) }
        guard case .malformed(let jsonLocation, let jsonReason) = jsonError else { Issue.record("got \(String(describing: jsonError))"); return }
        #expect(jsonLocation.file == json.path)
        #expect(jsonReason.hasPrefix("not valid JSON"))
    }

    @Test func missingPathsAreUnreadable() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/suite.yaml")
        #expect(throws: SuiteManifestError.unreadable(ManifestLocation(file: missing.path), reason: "no such file or directory")) {
            try SuiteManifest.load(from: missing)
        }
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let error = #expect(throws: SuiteManifestError.self) { try SuiteManifest.load(from: scratch.url) }
        #expect(error?.description.contains("none of suite.yaml, suite.yml, suite.json") == true)
    }

    @Test func missingEntitlementsFileNamesFieldAppAndPath() throws {
        let (error, path) = try load("apps:\n\(Self.entry(["entitlements": "mail/missing.plist"]))\n")
        guard case .entitlements(let location, .unreadable(let file, _)) = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(location == ManifestLocation(file: path, field: "apps[0].entitlements", app: "com.contoso.mail", line: 6))
        #expect(file.hasSuffix("/mail/missing.plist"))
        #expect(error?.description.contains("mail/missing.plist") == true)
    }

    @Test func badEntitlementsFileIsReported() throws {
        let noGroups = try PropertyListSerialization.data(fromPropertyList: ["application-identifier": "x"], format: .binary, options: 0)
        let (error, _) = try load("apps:\n\(Self.entry(["entitlements": "e.plist"]))\n", files: ["e.plist": noGroups])
        // Issue 30: a file without keychain-access-groups is read now; a malformed key still names it.
        guard case .entitlements(_, .wrongType(let file, "application-identifier", _, _)) = error else {
            Issue.record("got \(String(describing: error))"); return
        }
        #expect(file.hasSuffix("/e.plist"))
    }

    @Test func badInfoPlistFileNamesItsKeyAndTheApp() throws {
        let wrong = try PropertyListSerialization.data(
            fromPropertyList: ["CFBundleURLTypes": [["CFBundleURLSchemes": "msauth.com.contoso.mail"]]], format: .xml, options: 0)
        var (error, _) = try load("apps:\n\(Self.entry(["info_plist": "Info.plist"]))\n", files: ["Info.plist": wrong])
        guard case .wrongType(let location, "a list", "a string") = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location.file.hasSuffix("/Info.plist"))
        #expect(location.field == "CFBundleURLTypes[0].CFBundleURLSchemes")
        #expect(location.app == "com.contoso.mail")

        (error, _) = try load("apps:\n\(Self.entry(["info_plist": "Info.plist"]))\n", files: ["Info.plist": Data("<plist><dict><key>unterminated".utf8)])
        guard case .malformed(let garbage, _) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(garbage.file.hasSuffix("/Info.plist"))
        #expect(garbage.app == "com.contoso.mail")

        (error, _) = try load("apps:\n\(Self.entry(["info_plist": "nowhere/Info.plist"]))\n")
        guard case .unreadable(let missing, _) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(missing.file.hasSuffix("/nowhere/Info.plist"))
        #expect(error?.description.contains("(app com.contoso.mail): cannot read: Info.plist") == true)
    }

    @Test func identityReportsMalformedEntitlementEntries() throws {
        let app = Fixture.app("com.contoso.mail", entitlements: ["$(AppIdentifierPrefix)bad group"])
        let error = #expect(throws: SuiteManifestError.self) { try app.identity() }
        guard case .entitlements(let location, .invalidGroup) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(location.field == "entitlements")
        #expect(location.app == "com.contoso.mail")
        #expect(error?.description.contains("'$(AppIdentifierPrefix)bad group'") == true)
    }

    @Test func plistTypesAreNamedInErrors() throws {
        for (value, name) in [(true as Any, "a boolean"), (Data([1]) as Any, "data (1 bytes)"), (["a"] as Any, "a list")] {
            let data = try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": value], format: .binary, options: 0)
            #expect(throws: SuiteManifestError.wrongType(ManifestLocation(file: "Info.plist", field: "CFBundleIdentifier"),
                                                         expected: name == "a boolean" ? "text (in YAML, quote it)" : "text", found: name)) {
                try InfoPlist(propertyList: data, source: "Info.plist")
            }
        }
    }
}

@Suite("Manifests that are not UTF-8")
struct ManifestEncodingTests {
    @Test(arguments: ["suite.yaml", "suite.json"])
    func invalidUTF8IsRefusedWithItsOffset(_ name: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let text = name.hasSuffix(".json") ? #"{"apps": [{"bundle_id": "com.contoso.m"# : "apps:\n  - bundle_id: com.contoso.m"
        let manifest = try scratch.write(name, Data(text.utf8) + Data([0xFF, 0xFE]) + Data("ail\n".utf8))
        let error = #expect(throws: SuiteManifestError.self) { try SuiteManifest.load(from: manifest) }
        #expect(error.map { "\($0)" }?.contains("not UTF-8 text (bad byte at offset") == true, "\(String(describing: error))")
    }
}

@Suite("App groups in manifests")
struct AppGroupManifestTests {
    @Test func inlineEntitlementsTakeAppGroupsAndSuiteCheckRefusesMalformedOnes() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let entry = { (groups: String) in
            ManifestErrorTests.entry([
                "entitlements": "{keychain-access-groups: [$(AppIdentifierPrefix)com.microsoft.adalcache], com.apple.security.application-groups: [\(groups)]}",
            ])
        }
        let good = try SuiteManifest.load(from: try scratch.write("good.yaml", "apps:\n\(entry("group.com.contoso.shared"))\n"))
        let identity = try good.apps[0].identity()
        #expect(identity.accessGroupNames.last == "group.com.contoso.shared")

        let bad = try SuiteManifest.load(from: try scratch.write("bad.yaml", "apps:\n\(entry("com.contoso.shared"))\n"))
        let report = SuiteChecker.check(bad)
        let findings = report.findings.filter { $0.rule == .entitlementsValid }
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("an app group starts with 'group.'") == true)
    }
}
