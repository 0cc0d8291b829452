import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

/// `suite check` on the layout issue 21 recommends: each app keeps its cache in its own app-ID
/// group and gets single sign-on from the broker. Nothing is shared, so the one-sharing-group
/// rule and the shared-cache-wipe note do not apply; an app in its own group without the broker
/// gets no single sign-on and is still told so.
@Suite("Suite check: per-app groups with the broker")
struct PerAppGroupCheckTests {
    static let mail = "com.contoso.mail", calendar = "com.contoso.calendar", notes = "com.contoso.notes"

    @Test func thePerAppExampleSuitePassesWithNoFindings() throws {
        let suite = try SuiteManifest.load(from: BlastRadiusTests.examples.appendingPathComponent("suite-per-app"))
        let report = SuiteChecker.check(suite)
        #expect(report.findings == [], "\(report.findings)")
        #expect(report.passed)
    }

    @Test func perAppGroupsWithTheBrokerNeedNoSharedGroup() throws {
        let suite = try Fixture.suite(apps: [
            BlastRadiusTests.perAppApp(Self.mail), BlastRadiusTests.perAppApp(Self.calendar), BlastRadiusTests.perAppApp(Self.notes, family: nil),
        ])
        let report = SuiteChecker.check(suite)
        #expect(report.findings(.keychainGroupShared).isEmpty, "\(report.findings)")
        #expect(report.findings(.sharedCacheWipe).isEmpty, "\(report.findings)")
    }

    @Test func anAppInItsOwnGroupWithoutTheBrokerIsToldItGetsNoSingleSignOn() throws {
        let withoutBroker = BlastRadiusTests.perAppApp(Self.notes, family: nil)
        let notes = SuiteApp(
            bundleID: withoutBroker.bundleID, teamID: withoutBroker.teamID, clientID: withoutBroker.clientID,
            redirectURI: withoutBroker.redirectURI, keychainGroup: withoutBroker.keychainGroup, usesBroker: false,
            entitlements: withoutBroker.entitlements, infoPlist: withoutBroker.infoPlist)
        let report = SuiteChecker.check(try Fixture.suite(apps: [BlastRadiusTests.perAppApp(Self.mail), BlastRadiusTests.perAppApp(Self.calendar), notes]))
        let findings = report.findings(.keychainGroupShared)
        #expect(findings.map(\.app) == [Self.notes], "\(report.findings)")
        #expect(findings.first?.message.contains("broker: true") == true)
    }

    @Test func aSharedGroupBesidePerAppAppsCountsOnlyTheAppsInIt() throws {
        // Mail and Calendar share the default group; Notes keeps its own with the broker.
        let suite = try Fixture.suite(apps: [
            Fixture.app(Self.mail), Fixture.app(Self.calendar), BlastRadiusTests.perAppApp(Self.notes, family: nil),
        ])
        let report = SuiteChecker.check(suite)
        #expect(report.findings(.keychainGroupShared).isEmpty, "\(report.findings)")
        let wipe = report.findings(.sharedCacheWipe)
        #expect(wipe.count == 1)
        #expect(wipe.first?.message.contains("2 apps share com.microsoft.adalcache") == true, "\(wipe)")
    }
}
