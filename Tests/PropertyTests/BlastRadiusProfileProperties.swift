import Foundation
import PropertyBased
import SharedKeychain
import Testing
@testable import SuiteManifest
import TokenCache

/// Issue 32, point 4: generated suites of a few apps (MSAL and ADAL, client IDs spelled alike or
/// not, families, shared and own cache groups, entitlements that reach other apps' groups or
/// miss their own) get from the rules run per pair of profiles exactly the cells of the rules
/// run per pair of apps, and their exposure groups hold every pair's calls.
@Suite("Properties: blast radius by app profiles")
struct BlastRadiusProfileProperties {
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    static let numbers = Gen.uint64(in: 0...UInt64.max).array(of: 2...9)
    static let clientIDs = ["7b1d4a2e-3c5f-4e8a-9b6d-0f2e1c3a5b7d", "7B1D4A2E-3C5F-4E8A-9B6D-0F2E1C3A5B7D", "0f1e2d3c-4b5a-4697-8877-665544332211"]
    static let groups = ["com.microsoft.adalcache", "com.contoso.shared", "com.contoso.app0"]

    /// App `index` of a generated suite, its settings read from the bits of `bits`.
    static func app(_ index: Int, bits: UInt64, team: TeamIdentifier) throws -> SuiteApp {
        let bundleID = "com.contoso.app\(index)"
        func pick<T>(_ values: [T], _ shift: UInt64) -> T { values[Int((bits >> shift) % UInt64(values.count))] }
        let group = pick(groups + [bundleID], 0)
        // Its own group unless bit 8 is set; any of the others by bits 9 to 11.
        var entitlements = ["$(AppIdentifierPrefix)\(bundleID)"]
        if bits & (1 << 8) == 0 { entitlements.append("$(AppIdentifierPrefix)\(group)") }
        for (offset, other) in groups.enumerated() where bits & (1 << (9 + UInt64(offset))) != 0 {
            entitlements.append("$(AppIdentifierPrefix)\(other)")
        }
        return SuiteApp(
            bundleID: bundleID, teamID: team, clientID: pick(clientIDs, 3), redirectURI: RedirectURI.msalDefault(bundleID: bundleID),
            keychainGroup: try AccessGroup(teamID: team, identifier: group), familyID: pick([nil, "1", "2"], 12),
            entitlements: Entitlements(keychainAccessGroups: entitlements, applicationIdentifier: "\(team.rawValue).\(bundleID)"),
            infoPlist: InfoPlist(bundleIdentifier: bundleID, urlSchemes: [RedirectURI.msalScheme(bundleID: bundleID)]),
            sdk: pick([IdentitySDK.msal, .msal, .adal], 15))
    }

    @Test("the cells by profiles are the cells pair by pair; every pair has its exposure groups' calls")
    func profilesGiveEveryPairItsWays() throws {
        let team = try TeamIdentifier("ABCDE12345")
        SeededProperty.check("blast radius by profiles", count: 200, input: Self.numbers) { bits in
            let suite = try Suite(manifest: URL(fileURLWithPath: "/suites/generated/suite.yaml"),
                                  apps: try bits.enumerated().map { try Self.app($0.offset, bits: $0.element, team: team) })
            let radius = try BlastRadius(suite)
            var subjects: [BlastSubject] = []
            for app in suite.apps { subjects.append(try BlastSubject(app)) }
            let groups = radius.exposureGroups
            var cells: [BlastRadius.Cell] = []
            for (attacker, from) in subjects.enumerated() {
                for (victim, to) in subjects.enumerated() where victim != attacker {
                    let expected = DestructiveCall.allCases.compactMap { $0.way(from: from, to: to) }
                    if !expected.isEmpty { cells.append(BlastRadius.Cell(attacker: from.app.bundleID, victim: to.app.bundleID, ways: expected)) }
                    guard radius.ways(attacker: from.app.bundleID, victim: to.app.bundleID) == expected else {
                        throw Violation(description: "\(from.app.bundleID) -> \(to.app.bundleID): not \(expected.map(\.call))")
                    }
                    guard groups.calls(attacker: groups.groupOfApp[attacker], victim: groups.groupOfApp[victim]) == expected.map(\.call) else {
                        throw Violation(description: "exposure groups \(groups.members) lose \(from.app.bundleID) -> \(to.app.bundleID)")
                    }
                }
            }
            guard radius.cells == cells, radius.wayCount == cells.reduce(0, { $0 + $1.ways.count }) else {
                throw Violation(description: "cells \(radius.cells.map { "\($0.attacker)>\($0.victim)" }) for \(cells.map { "\($0.attacker)>\($0.victim)" })")
            }
            // Apps of one profile are never told apart.
            for (app, profile) in radius.profiles.profileOfApp.enumerated() {
                let first = radius.profiles.profileOfApp.firstIndex(of: profile) ?? app
                guard groups.groupOfApp[app] == groups.groupOfApp[first] else {
                    throw Violation(description: "app \(app) of profile \(profile) not in the group of app \(first): \(groups.members)")
                }
            }
        }
    }
}
