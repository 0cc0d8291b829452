import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest
import TokenCache

/// Intune beside the suite (issue 30, point 2): the Intune App SDK reads the user's token from
/// `com.microsoft.adalcache`, or from the group `IntuneMAMSettings > ADALCacheKeychainGroupOverride`
/// names (ms-intune-app-sdk-ios #504, #39). Per-app groups break enrolment unless the override
/// names the group MSAL writes to.
@Suite("Suite manifests: Intune App SDK settings")
struct IntuneSuiteTests {
    static let mail = "com.contoso.mail", calendar = "com.contoso.calendar", notes = "com.contoso.notes"
    static var perAppExample: URL { BlastRadiusTests.examples.appendingPathComponent("suite-per-app") }

    /// The per-app example's manifest with `edit` applied, written to `scratch`.
    static func editedPerAppExample(_ scratch: ScratchDirectory, _ edit: (String) -> String) throws -> URL {
        let text = try String(contentsOf: perAppExample.appendingPathComponent("suite.yaml"), encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text, "the edit must change the example")
        return try scratch.write("suite.yaml", edited)
    }

    static let overrideLine = "        ADALCacheKeychainGroupOverride: com.contoso.mail   # where MSAL keeps Mail's cache\n"

    // MARK: suite check

    @Test func thePerAppExampleWithADALCacheKeychainGroupOverrideSetPasses() throws {
        let suite = try SuiteManifest.load(from: Self.perAppExample)
        let mail = try suite.app(bundleID: Self.mail)
        #expect(mail.intune == IntuneSettings(cacheGroupOverride: "com.contoso.mail"))
        #expect(try mail.intuneCacheGroup()?.rawValue == "ABCDE12345.com.contoso.mail")
        let report = SuiteChecker.check(suite)
        #expect(report.findings == [], "\(report.findings)")
    }

    @Test func thePerAppExampleWithoutTheOverrideReportsIntuneCacheGroup() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) { $0.replacingOccurrences(of: Self.overrideLine, with: "") }
        let report = SuiteChecker.check(try SuiteManifest.load(from: manifest))
        let findings = report.findings(.intuneCacheGroup)
        #expect(findings.map(\.app) == [Self.mail], "\(report.findings)")
        #expect(findings.map(\.severity) == [.error])
        let message = try #require(findings.first?.message)
        #expect(message.contains("ABCDE12345.com.microsoft.adalcache"), "\(message)")
        #expect(message.contains("no ADALCacheKeychainGroupOverride is set"), "\(message)")
        #expect(message.contains("set ADALCacheKeychainGroupOverride to 'com.contoso.mail'"), "\(message)")
        #expect(!report.passed)
        // Nothing else changed: the override is the only finding.
        #expect(report.findings.count == 1, "\(report.findings)")
    }

    @Test func anOverrideNamingAnotherGroupThanTheCacheIsReported() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) {
            $0.replacingOccurrences(of: "ADALCacheKeychainGroupOverride: com.contoso.mail", with: "ADALCacheKeychainGroupOverride: com.contoso.shared")
        }
        let findings = SuiteChecker.check(try SuiteManifest.load(from: manifest)).findings(.intuneCacheGroup)
        #expect(findings.count == 1)
        #expect(findings.first?.message.contains("ABCDE12345.com.contoso.shared (ADALCacheKeychainGroupOverride names it)") == true, "\(findings)")
    }

    @Test func intuneTrueReadsTheDefaultGroupWhichTheSharedGroupSuiteUses() throws {
        // The apps share com.microsoft.adalcache: Intune finds MSAL's cache there, no override needed.
        let calendar = Fixture.app(Self.calendar, intune: IntuneSettings())
        let passing = SuiteChecker.check(try Fixture.suite([Self.calendar: calendar]))
        #expect(passing.findings(.intuneCacheGroup).isEmpty, "\(passing.findings)")

        // The same app moved to its own group with the broker (issue 21's fix) loses enrolment.
        let perApp = BlastRadiusTests.perAppApp(Self.calendar)
        let moved = SuiteApp(
            bundleID: perApp.bundleID, teamID: perApp.teamID, clientID: perApp.clientID, redirectURI: perApp.redirectURI,
            keychainGroup: perApp.keychainGroup, familyID: perApp.familyID, usesBroker: true, entitlements: perApp.entitlements,
            infoPlist: perApp.infoPlist, intune: IntuneSettings())
        let failing = SuiteChecker.check(try Fixture.suite(apps: [BlastRadiusTests.perAppApp(Self.mail), moved]))
        #expect(failing.findings(.intuneCacheGroup).map(\.app) == [Self.calendar], "\(failing.findings)")
    }

    // MARK: reading the settings

    @Test func anInfoPlistFileCarriesIntuneMAMSettingsAndItsOtherKeysAreIgnored() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let file = try scratch.plist("Info.plist", [
            "CFBundleIdentifier": Self.mail,
            "IntuneMAMSettings": [
                "ADALClientId": Fixture.clientID, "ADALRedirectUri": "msauth.com.contoso.mail://auth",
                "ADALAuthority": "https://login.microsoftonline.com/common", "MAMTelemetryDisabled": true,
                "ADALCacheKeychainGroupOverride": "com.contoso.mail",
            ] as [String: Any],
        ])
        let plist = try InfoPlist(contentsOf: file)
        #expect(plist.intune == IntuneSettings(cacheGroupOverride: "com.contoso.mail"))
        // Written back and read again, the settings survive.
        let again = try InfoPlist(propertyList: plist.propertyListData(), source: "round trip")
        #expect(again.intune == plist.intune)
        #expect(try InfoPlist(contentsOf: scratch.plist("Plain.plist", ["CFBundleIdentifier": Self.mail])).intune == nil)
    }

    @Test func intuneMAMSettingsInAManifestIsNoLongerAnUnknownField() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) { $0.replacingOccurrences(of: Self.overrideLine, with: "") }
        let mail = try SuiteManifest.load(from: manifest).app(bundleID: Self.mail)
        #expect(mail.intune == IntuneSettings())
        #expect(try mail.intuneCacheGroup()?.rawValue == "ABCDE12345.com.microsoft.adalcache")
    }

    @Test func aWrongTypeIsAnErrorNamingTheKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let listOverride = try Self.editedPerAppExample(scratch) {
            $0.replacingOccurrences(of: "ADALCacheKeychainGroupOverride: com.contoso.mail", with: "ADALCacheKeychainGroupOverride: [com.contoso.mail]")
        }
        let error = try #require(throws: SuiteManifestError.self) { try SuiteManifest.load(from: listOverride) }
        #expect(error.description.contains("apps[0].info_plist.IntuneMAMSettings.ADALCacheKeychainGroupOverride"), "\(error)")
        #expect(error.description.contains("must be text, but it is a list"), "\(error)")

        let file = try scratch.plist("Info.plist", ["IntuneMAMSettings": "com.contoso.mail"])
        let fileError = try #require(throws: SuiteManifestError.self) { try InfoPlist(contentsOf: file) }
        #expect(fileError.description.contains("IntuneMAMSettings"), "\(fileError)")
        #expect(fileError.description.contains("must be a mapping"), "\(fileError)")
    }

    @Test func aTeamPrefixedOverrideIsUsedAsIsAsMSIDKeychainTokenCacheInitWithGroupDoes() throws {
        let team = Fixture.team
        #expect(try IntuneSettings(cacheGroupOverride: "ABCDE12345.com.contoso.mail").cacheGroup(team: team).rawValue == "ABCDE12345.com.contoso.mail")
        #expect(try IntuneSettings(cacheGroupOverride: "com.contoso.mail").cacheGroup(team: team).rawValue == "ABCDE12345.com.contoso.mail")
        #expect(try IntuneSettings().cacheGroup(team: team).rawValue == "ABCDE12345.com.microsoft.adalcache")
    }

    @Test func anOverrideThatMakesNoGroupIsAnErrorNamingTheKey() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) {
            $0.replacingOccurrences(of: "ADALCacheKeychainGroupOverride: com.contoso.mail", with: "ADALCacheKeychainGroupOverride: $(AppIdentifierPrefix)com.contoso.mail")
        }
        let error = try #require(throws: SuiteManifestError.self) { try SuiteManifest.load(from: manifest) }
        guard case .invalidValue(let location, _, _) = error else { Issue.record("\(error)"); return }
        #expect(location.field == "apps[0].info_plist.IntuneMAMSettings.ADALCacheKeychainGroupOverride")
        #expect(location.app == Self.mail)
    }

    @Test func intuneFalseBesideIntuneMAMSettingsIsAContradiction() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) {
            $0.replacingOccurrences(of: "    keychain_group: com.contoso.mail          # its app ID: reachable by no other app\n",
                                    with: "    keychain_group: com.contoso.mail\n    intune: false\n")
        }
        let error = try #require(throws: SuiteManifestError.self) { try SuiteManifest.load(from: manifest) }
        #expect(error.description.contains("apps[0].intune"), "\(error)")
        #expect(error.description.contains("IntuneMAMSettings"), "\(error)")
    }

    // MARK: blast radius

    @Test func inASharedGroupEveryOtherAppCanBreakEnrolment() throws {
        let calendar = Fixture.app(Self.calendar, intune: IntuneSettings())
        let radius = try BlastRadius(Fixture.suite([Self.calendar: calendar]))
        #expect(radius.intuneReaders == [.init(bundleID: Self.calendar, group: "ABCDE12345.com.microsoft.adalcache", readsTheCache: true)])
        let exposures = radius.intuneExposures
        #expect(exposures.map(\.attacker) == [Self.mail, Self.notes])
        for exposure in exposures {
            #expect(exposure.intuneApp == Self.calendar)
            // Every call that deletes tokens; the account-metadata race deletes none.
            #expect(exposure.calls == [.wipeCacheForAllAccounts, .wipeAccount, .removeAccount, .ungroupedDelete])
        }
        #expect(radius.text.contains("intune enrolment: an app that can delete the token"))
        #expect(radius.text.contains("\(Self.calendar) (Intune reads ABCDE12345.com.microsoft.adalcache): \(Self.mail) (WARD), \(Self.notes) (WARD)"), "\(radius.text)")
    }

    @Test func thePerAppExampleLeavesEnrolmentToNoOtherApp() throws {
        let radius = try BlastRadius(SuiteManifest.load(from: Self.perAppExample))
        #expect(radius.intuneReaders == [.init(bundleID: Self.mail, group: "ABCDE12345.com.contoso.mail", readsTheCache: true)])
        #expect(radius.intuneExposures.isEmpty)
        #expect(radius.text.contains("Contoso Mail (Intune reads ABCDE12345.com.contoso.mail): no other app can delete it"), "\(radius.text)")
    }

    @Test func aMisdirectedIntuneHasNoTokenToLose() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        let manifest = try Self.editedPerAppExample(scratch) { $0.replacingOccurrences(of: Self.overrideLine, with: "") }
        let radius = try BlastRadius(SuiteManifest.load(from: manifest))
        #expect(radius.intuneReaders.map(\.readsTheCache) == [false])
        #expect(radius.text.contains("enrolment has no token to lose (suite check: intune-cache-group)"), "\(radius.text)")
    }

    // MARK: the Intune reader

    /// Mail signs alice in with MSAL into its cache group; Intune then reads as Mail.
    static func lookUp(cacheGroup: String, intune: IntuneSettings, entitlements: [String]) throws -> IntuneTokenLookup {
        let store = InMemoryStore()
        let app = try AppIdentity(bundleID: mail, teamID: Fixture.team,
                                  entitlements: Entitlements(keychainAccessGroups: entitlements, applicationIdentifier: "\(Fixture.team.rawValue).\(mail)"), source: "test")
        let keychain = Keychain(app: app, store: store)
        let configuration = TokenCacheConfiguration(clientID: Fixture.clientID, keychainSharingGroup: cacheGroup, familyID: "1")
        _ = try TokenCache(keychain: keychain, configuration: configuration).signIn(username: "alice@contoso.com", tenant: "contoso.com")
        return try IntuneTokenReader.lookUp(username: "Alice@contoso.com", intune: intune, keychain: keychain, configuration: configuration)
    }

    @Test func theReaderFindsTheTokenWhereTheOverridePoints() throws {
        let lookup = try Self.lookUp(cacheGroup: Self.mail, intune: IntuneSettings(cacheGroupOverride: Self.mail), entitlements: [])
        #expect(lookup.group == "ABCDE12345.com.contoso.mail")
        #expect(lookup.status == .success)
        guard case .found = lookup.outcome else { Issue.record("\(lookup)"); return }
        #expect(lookup.summary.contains("found 'Alice@contoso.com'"))
    }

    @Test func withoutTheOverrideTheReaderGetsMissingEntitlementForAPerAppApp() throws {
        // The app is entitled to its own group only: Intune's read of adalcache is -34018.
        let lookup = try Self.lookUp(cacheGroup: Self.mail, intune: IntuneSettings(), entitlements: [])
        #expect(lookup.group == "ABCDE12345.com.microsoft.adalcache")
        #expect(lookup.status == .missingEntitlement)
        #expect(lookup.summary.contains("-34018"), "\(lookup.summary)")
    }

    @Test func entitledToTheDefaultGroupButTheCacheIsElsewhereIsNotFound() throws {
        let lookup = try Self.lookUp(cacheGroup: Self.mail, intune: IntuneSettings(),
                                     entitlements: ["$(AppIdentifierPrefix)com.contoso.mail", "$(AppIdentifierPrefix)com.microsoft.adalcache"])
        #expect(lookup.status == .itemNotFound)
        guard case .notFound(let reason) = lookup.outcome else { Issue.record("\(lookup)"); return }
        #expect(reason.contains("no account 'Alice@contoso.com' in ABCDE12345.com.microsoft.adalcache"), "\(reason)")
    }
}
