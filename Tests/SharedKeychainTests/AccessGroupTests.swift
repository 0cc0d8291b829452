import Testing
@testable import SharedKeychain

@Suite("Team IDs and access groups")
struct AccessGroupTests {
    let team = try! TeamIdentifier("ABCDE12345")

    @Test(arguments: ["ABCDE12345", "0123456789", "ZZZZZZZZZZ"])
    func acceptsTeamIDs(_ value: String) throws {
        #expect(try TeamIdentifier(value).rawValue == value)
    }

    @Test(arguments: ["", "abcde12345", "ABCDE1234", "ABCDE123456", "ABCDE-1234", "ABCDÉ12345"])
    func rejectsTeamIDs(_ value: String) {
        #expect(throws: AccessGroupError.invalidTeamID(value)) { try TeamIdentifier(value) }
    }

    @Test func parsesFullGroup() throws {
        let group = try AccessGroup("ABCDE12345.com.microsoft.adalcache")
        #expect(group.teamID == team)
        #expect(group.identifier == "com.microsoft.adalcache")
        #expect(group.rawValue == "ABCDE12345.com.microsoft.adalcache")
    }

    @Test(arguments: [
        "$(AppIdentifierPrefix)com.myapp.mycache",
        "$(TeamIdentifierPrefix)com.myapp.mycache",
        "ABCDE12345.com.myapp.mycache",
    ])
    func expandsEntitlementEntries(_ entry: String) throws {
        let group = try AccessGroup(entitlement: entry, teamID: team)
        #expect(group.rawValue == "ABCDE12345.com.myapp.mycache")
    }

    @Test(arguments: [
        "", "com.myapp.mycache", "$(AppIdentifierPrefix)", "$(AppIdentifierPrefix)com..cache",
        "$(AppIdentifierPrefix)com.cache.", "$(AppIdentifierPrefix)com.my app", "com.$(AppIdentifierPrefix)x",
        "$(ProductBundleIdentifier).cache",
    ])
    func rejectsMalformedEntriesQuotingThem(_ entry: String) {
        let error = #expect(throws: AccessGroupError.self) { try AccessGroup(entitlement: entry, teamID: team) }
        #expect(error?.description.contains("'\(entry)'") == true)
    }

    /// A re-signing service's `TEAM.*` (microsoft-authentication-library-for-objc #1591) is an
    /// entry iOS keeps literally; a `*` anywhere but a whole last part is still malformed.
    @Test(arguments: ["ABCDE12345.*", "$(AppIdentifierPrefix)*", "ABCDE12345.com.contoso.*"])
    func keepsWildcardEntriesLiterally(_ entry: String) throws {
        let group = try AccessGroup(entitlement: entry, teamID: team)
        #expect(group.isWildcard)
        #expect(group.rawValue == entry.replacingOccurrences(of: "$(AppIdentifierPrefix)", with: "ABCDE12345."))
    }

    @Test(arguments: ["ABCDE12345.com*", "ABCDE12345.*.contoso", "ABCDE12345..*", "ABCDE12345.**"])
    func rejectsOtherStars(_ entry: String) {
        #expect(throws: AccessGroupError.self) { try AccessGroup(entitlement: entry, teamID: team) }
    }

    @Test func rejectsAnotherTeamsGroup() {
        #expect(throws: AccessGroupError.foreignTeam(entry: "ZZZZZ99999.com.other", team: "ZZZZZ99999", appTeam: "ABCDE12345")) {
            try AccessGroup(entitlement: "ZZZZZ99999.com.other", teamID: team)
        }
    }

    @Test func groupsRoundTripThroughCodable() throws {
        let group = try AccessGroup("ABCDE12345.com.microsoft.adalcache")
        let data = try JSONEncoder().encode([group])
        #expect(String(decoding: data, as: UTF8.self) == #"["ABCDE12345.com.microsoft.adalcache"]"#)
        #expect(try JSONDecoder().decode([AccessGroup].self, from: data) == [group])
        #expect(throws: (any Error).self) { try JSONDecoder().decode([AccessGroup].self, from: Data(#"["nodot"]"#.utf8)) }
    }
}

import Foundation
