import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

/// Issue 32, point 4: the rules run once per pair of app profiles, not per pair of apps, and
/// every pair still gets exactly the ways the rules give it.
@Suite("Blast radius by app profiles: every pair has the ways the rules give it pair by pair")
struct BlastRadiusProfileTests {
    /// The cells the rules give when applied to every ordered pair of different apps, as
    /// `BlastRadius` computed them before profiles: the reference.
    static func pairwiseCells(_ suite: Suite) throws -> [BlastRadius.Cell] {
        var subjects: [BlastSubject] = []
        for app in suite.apps { subjects.append(try BlastSubject(app)) }
        var cells: [BlastRadius.Cell] = []
        for attacker in subjects {
            for victim in subjects where victim.app.bundleID != attacker.app.bundleID {
                let ways = DestructiveCall.allCases.compactMap { $0.way(from: attacker, to: victim) }
                if !ways.isEmpty { cells.append(BlastRadius.Cell(attacker: attacker.app.bundleID, victim: victim.app.bundleID, ways: ways)) }
            }
        }
        return cells
    }

    /// The generated suite of `apps` apps (`suite init --apps`), loaded from its manifest.
    static func generatedSuite(_ apps: Int) throws -> Suite {
        let scratch = try ScratchDirectory()
        defer { scratch.cleanUp() }
        try ExampleSuite.writeGenerated(apps: apps, to: scratch.url)
        return try SuiteManifest.load(from: scratch.url)
    }

    @Test func aGeneratedSuiteHasTheCellsOfThePairwiseRules() throws {
        let suite = try Self.generatedSuite(150)
        let radius = try BlastRadius(suite)
        // Per ten apps: the six shared-group MSAL apps, the ADAL app and the second client ID
        // are one profile each suite-wide; the two apps with a group of their own are not.
        #expect(radius.profiles.count == 3 + 2 * 15)
        let reference = try Self.pairwiseCells(suite)
        #expect(radius.cells.count == reference.count)
        #expect(radius.cells == reference)
        #expect(radius.wayCount == reference.reduce(0) { $0 + $1.ways.count })
        for cell in reference.prefix(500) { #expect(radius.ways(attacker: cell.attacker, victim: cell.victim) == cell.ways) }
        #expect(radius.ways(attacker: "com.contoso.app1", victim: "com.contoso.app1").isEmpty)
        #expect(radius.ways(attacker: "com.contoso.app1", victim: "com.contoso.unknown").isEmpty)
    }

    @Test func appsTheRulesCannotTellApartShareAProfile() throws {
        let suite = try Fixture.suite(apps: [
            Fixture.app("com.contoso.mail"), Fixture.app("com.contoso.calendar"),
            // A group no app keeps its cache in changes no rule.
            Fixture.app("com.contoso.notes", entitlements: [
                "$(AppIdentifierPrefix)com.contoso.notes", "$(AppIdentifierPrefix)com.microsoft.adalcache",
                "$(AppIdentifierPrefix)com.contoso.unused",
            ]),
            // The client ID spelled in capitals is another profile: the metadata race reads it as spelled.
            Fixture.app("com.contoso.tasks", clientID: Fixture.clientID.uppercased()),
            // Its cache group is another app's entitlement target: its own profile.
            Fixture.app("com.contoso.files", keychainGroup: "com.contoso.files"),
            Fixture.app("com.contoso.photos", entitlements: [
                "$(AppIdentifierPrefix)com.contoso.photos", "$(AppIdentifierPrefix)com.microsoft.adalcache",
                "$(AppIdentifierPrefix)com.contoso.files",
            ]),
        ])
        let radius = try BlastRadius(suite)
        #expect(radius.profiles.profileOfApp == [0, 0, 0, 1, 2, 3])
        #expect(radius.profiles.appCounts == [3, 1, 1, 1])
        #expect(radius.cells == (try Self.pairwiseCells(suite)))
    }

    @Test func aProfileOfOneAppJoinsTheGroupOfAProfileOfSeveralWhenItsPairsAreAlike() throws {
        // Tasks differs from Mail and Calendar only in the client ID's spelling, which only the
        // metadata race reads; as ADAL apps none of them races, so all three are one group,
        // although Tasks is a profile of one app and has no pair with itself.
        func adal(_ bundleID: String, client: String = Fixture.clientID) -> SuiteApp {
            let base = Fixture.app(bundleID, clientID: client)
            return SuiteApp(bundleID: bundleID, teamID: base.teamID, clientID: client, redirectURI: base.redirectURI,
                            keychainGroup: base.keychainGroup, entitlements: base.entitlements, infoPlist: base.infoPlist, sdk: .adal)
        }
        let suite = try Fixture.suite(apps: [
            adal("com.contoso.mail"), adal("com.contoso.calendar"), adal("com.contoso.tasks", client: Fixture.clientID.uppercased()),
        ])
        let radius = try BlastRadius(suite)
        #expect(radius.profiles.appCounts == [2, 1])
        let groups = radius.exposureGroups
        #expect(groups.members == [[0, 1, 2]])
        #expect(groups.calls(attacker: 0, victim: 0) == radius.ways(attacker: "com.contoso.tasks", victim: "com.contoso.mail").map(\.call))
    }
}
