import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

@Suite("Loading suite manifests")
struct ManifestLoadingTests {
    @Test func loadsADirectoryWithItsPlistFiles() throws {
        let directory = try fixture("directory-suite")
        let suite = try SuiteManifest.load(from: directory)
        #expect(suite.manifest.lastPathComponent == "suite.yaml")
        #expect(suite.name == "Contoso test suite")
        #expect(suite.apps.map(\.bundleID) == ["com.contoso.mail", "com.contoso.calendar", "com.contoso.notes"])
        #expect(suite.registeredRedirectURIs?.count == 4)

        let mail = try suite.app(bundleID: "com.contoso.mail")
        #expect(mail.name == "Contoso Mail")
        #expect(mail.teamID.rawValue == "ABCDE12345")
        #expect(mail.clientID == "7B1D4A2E-3C5F-4E8A-9B6D-0F2E1C3A5B7D")
        #expect(mail.redirectURI == "msauth.com.contoso.mail://auth")
        #expect(mail.keychainGroup.rawValue == "ABCDE12345.com.microsoft.adalcache")
        #expect(mail.familyID == "1")
        #expect(mail.usesBroker && mail.certificateBasedAuth && mail.privileged)
        #expect(mail.certificateAuthRedirectURI == "msauth://code/msauth.com.contoso.mail%3A%2F%2Fauth")
        #expect(mail.entitlementsSource == .file(directory.appendingPathComponent("mail/entitlements.plist").standardizedFileURL))
        #expect(mail.infoPlist.urlSchemes == ["msauth.$(PRODUCT_BUNDLE_IDENTIFIER)"])
        #expect(mail.infoPlist.queriesSchemes == ["msauth", "msauthv2"])
        #expect(mail.declaration.field == "apps[0]")
        #expect(mail.declaration.app == "com.contoso.mail")
    }

    @Test func readsBinaryPlistsReferencedByRelativePath() throws {
        let suite = try SuiteManifest.load(from: fixture("directory-suite"))
        let calendar = try suite.app(bundleID: "com.contoso.calendar")
        // "./calendar/…" resolves against the manifest's directory.
        guard case .file(let url) = calendar.entitlementsSource else { Issue.record("expected a file"); return }
        #expect(url.path.hasSuffix("directory-suite/calendar/entitlements.plist"))
        #expect(try Data(contentsOf: url).starts(with: Array("bplist".utf8)))
        #expect(calendar.entitlements.keychainAccessGroups == [
            "$(AppIdentifierPrefix)com.contoso.calendar", "$(AppIdentifierPrefix)com.microsoft.adalcache",
        ])
        #expect(calendar.infoPlist == InfoPlist(
            bundleIdentifier: "com.contoso.calendar", urlSchemes: ["x-msauth-contoso-calendar", "contoso-calendar"]))
        #expect(!calendar.usesBroker && !calendar.certificateBasedAuth && !calendar.privileged)
        #expect(calendar.familyID == nil)
    }

    @Test func readsInlinePlistsAndDefaults() throws {
        let notes = try SuiteManifest.load(from: fixture("directory-suite")).app(bundleID: "com.contoso.notes")
        #expect(notes.name == nil)
        #expect(notes.displayName == "com.contoso.notes")
        #expect(notes.keychainGroup.identifier == SuiteApp.defaultKeychainGroup)
        #expect(notes.entitlements.keychainAccessGroups == [
            "$(AppIdentifierPrefix)com.contoso.notes", "$(AppIdentifierPrefix)com.microsoft.adalcache",
        ])
        #expect(notes.infoPlist == InfoPlist(urlSchemes: ["msauth.com.contoso.notes"]))
        guard case .inline(let location) = notes.infoPlistSource else { Issue.record("expected inline"); return }
        #expect(location.field == "apps[2].info_plist")
        // YAML 1.1 spells false "no" too.
        #expect(!notes.privileged)
    }

    @Test func manifestFileAndItsDirectoryLoadAlike() throws {
        let byDirectory = try SuiteManifest.load(from: fixture("directory-suite"))
        let byFile = try SuiteManifest.load(from: fixture("directory-suite/suite.yaml"))
        #expect(byDirectory == byFile)
    }

    @Test func yamlAndJSONManifestsLoadAlike() throws {
        let yaml = try SuiteManifest.load(from: fixture("inline.yaml"))
        let json = try SuiteManifest.load(from: fixture("inline.json"))
        #expect(yaml.apps.count == 2)
        for (fromYAML, fromJSON) in zip(yaml.apps, json.apps) {
            #expect(fromYAML.bundleID == fromJSON.bundleID)
            #expect(fromYAML.teamID == fromJSON.teamID)
            #expect(fromYAML.clientID == fromJSON.clientID)
            #expect(fromYAML.redirectURI == fromJSON.redirectURI)
            #expect(fromYAML.keychainGroup == fromJSON.keychainGroup)
            #expect(fromYAML.familyID == fromJSON.familyID)
            #expect(fromYAML.usesBroker == fromJSON.usesBroker)
            #expect(fromYAML.privileged == fromJSON.privileged)
            #expect(fromYAML.entitlements == fromJSON.entitlements)
            #expect(fromYAML.infoPlist == fromJSON.infoPlist)
        }
    }

    @Test func numbersStayAsWritten() throws {
        let chat = try SuiteManifest.load(from: fixture("inline.yaml")).apps[0]
        // A plain 0123456789 is a number to YAML; a team ID is text, leading zero and all.
        #expect(chat.teamID.rawValue == "0123456789")
        #expect(chat.familyID == "1")
        #expect(try SuiteManifest.load(from: fixture("inline.json")).apps[0].familyID == "1")
    }

    @Test func detectsJSONByContentWithoutExtension() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try scratch.write("contoso.manifest", String(contentsOf: fixture("inline.json"), encoding: .utf8))
        #expect(try SuiteManifest.load(from: manifest).apps.map(\.bundleID) == ["com.fabrikam.chat", "com.fabrikam.files"])
        let yaml = try scratch.write("contoso.conf", String(contentsOf: fixture("inline.yaml"), encoding: .utf8))
        #expect(try SuiteManifest.load(from: yaml).apps.count == 2)
    }

    @Test func directoryMayHoldSuiteJSON() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        try scratch.write("suite.json", String(contentsOf: fixture("inline.json"), encoding: .utf8))
        #expect(try SuiteManifest.load(from: scratch.url).manifest.lastPathComponent == "suite.json")
    }

    @Test func identityComesFromTheEntitlements() throws {
        let suite = try SuiteManifest.load(from: fixture("directory-suite"))
        let identity = try suite.app(bundleID: "com.contoso.calendar").identity()
        #expect(identity.bundleID == "com.contoso.calendar")
        #expect(identity.accessGroups.map(\.rawValue) == [
            "ABCDE12345.com.contoso.calendar", "ABCDE12345.com.microsoft.adalcache",
        ])
        #expect(identity.isEntitled(to: "ABCDE12345.com.microsoft.adalcache"))
        let files = try SuiteManifest.load(from: fixture("inline.json")).app(bundleID: "com.fabrikam.files").identity()
        #expect(files.isEntitled(to: "0123456789.com.fabrikam.sso"))
    }

    @Test func findsAppsByBundleIDIgnoringCase() throws {
        let suite = try SuiteManifest.load(from: fixture("directory-suite"))
        #expect(try suite.app(bundleID: "COM.CONTOSO.NOTES").bundleID == "com.contoso.notes")
    }

    @Test func unknownBundleIDListsTheKnownOnes() throws {
        let suite = try SuiteManifest.load(from: fixture("directory-suite"))
        let error = #expect(throws: SuiteManifestError.self) { try suite.app(bundleID: "com.contoso.tasks") }
        #expect(error == .unknownApp(bundleID: "com.contoso.tasks", manifest: suite.manifest.path,
                                     known: ["com.contoso.mail", "com.contoso.calendar", "com.contoso.notes"]))
        #expect(error?.description.contains("com.contoso.mail, com.contoso.calendar, com.contoso.notes") == true)
        #expect(error?.status == .param)
    }

    @Test func infoPlistResolvesTheBundleIDVariable() throws {
        let plist = InfoPlist(bundleIdentifier: "$(PRODUCT_BUNDLE_IDENTIFIER)",
                              urlSchemes: ["msauth.$(PRODUCT_BUNDLE_IDENTIFIER)", "msauth.${PRODUCT_BUNDLE_IDENTIFIER}"])
            .resolvingBuildVariables(bundleID: "com.contoso.mail")
        #expect(plist.bundleIdentifier == "com.contoso.mail")
        #expect(plist.urlSchemes == ["msauth.com.contoso.mail", "msauth.com.contoso.mail"])
        #expect(plist.registers(scheme: "MSAUTH.com.contoso.mail"))
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func infoPlistRoundTrips(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let plist = InfoPlist(bundleIdentifier: "com.contoso.mail", urlSchemes: ["msauth.com.contoso.mail", "contoso"],
                              queriesSchemes: ["msauth", "msauthv2"])
        let data = try plist.propertyListData(format: format)
        #expect(try InfoPlist(propertyList: data, source: "round trip") == plist)
    }
}
