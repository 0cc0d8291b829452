import Foundation
import SharedKeychain
import Testing
@testable import SuiteManifest

/// The blast radius with ADAL apps (`sdk: adal`), as ADAL's public cache API
/// (ADALKeychainTokenCache.h) and IdentityCore's legacy accessor behave: no
/// wipeCacheForAllAccounts; wipeAllItemsForUserId is a wipeAccount; removeAllForUserId:clientId:
/// and MSAL's removeAccount delete ADAL's legacy items of the caller's client ID but not the
/// foci-<fid> copy; no account metadata.
@Suite("Blast radius with ADAL apps")
struct ADALBlastRadiusTests {
    static let mail = "com.contoso.mail", calendar = "com.contoso.calendar", expenses = "com.contoso.expenses"

    /// An app of the shared group with Fixture's client ID unless given, built with `sdk`.
    static func app(_ bundleID: String, sdk: IdentitySDK, client: String = Fixture.clientID, family: String? = nil) -> SuiteApp {
        let base = Fixture.app(bundleID, clientID: client)
        return SuiteApp(bundleID: bundleID, teamID: base.teamID, clientID: client, redirectURI: base.redirectURI,
                        keychainGroup: base.keychainGroup, familyID: family, entitlements: base.entitlements,
                        infoPlist: base.infoPlist, sdk: sdk)
    }

    @Test func anADALAppHasNoWipeCacheForAllAccountsAndNoMetadataRace() throws {
        let radius = try BlastRadius(Fixture.suite(apps: [Self.app(Self.mail, sdk: .msal), Self.app(Self.expenses, sdk: .adal)]))
        let fromADAL = radius.ways(attacker: Self.expenses, victim: Self.mail)
        #expect(fromADAL.map(\.call) == [.wipeAccount, .removeAccount, .ungroupedDelete])
        #expect(fromADAL.first?.reason.contains("wipeAllItemsForUserId") == true)
        let remove = try #require(fromADAL.first { $0.call == .removeAccount })
        #expect(remove.reason.contains("removeAllForUserId:clientId:"))
        #expect(!remove.reason.contains("signed_out"), "ADAL writes no sign-in state")
        // MSAL's wipe of the whole group takes the ADAL app's items too; no race with an ADAL app.
        let toADAL = radius.ways(attacker: Self.mail, victim: Self.expenses).map(\.call)
        #expect(toADAL.contains(.wipeCacheForAllAccounts))
        #expect(!toADAL.contains(.accountMetadataRace))
    }

    @Test func msalsRemoveAccountDestroysAnADALAppOfItsClientIDOnlyWithoutAFamily() throws {
        let other = "11111111-0000-0000-0000-000000000009"
        let suite = try Fixture.suite(apps: [
            Self.app(Self.mail, sdk: .msal, family: "1"),
            Self.app(Self.expenses, sdk: .adal),
            Self.app("com.contoso.travel", sdk: .adal, family: "1"),
            Self.app("com.contoso.hr", sdk: .adal, client: other, family: "1"),
        ])
        let radius = try BlastRadius(suite)
        // No family: its legacy items of Mail's client ID go and nothing is left to refresh with.
        let remove = try #require(radius.ways(attacker: Self.mail, victim: Self.expenses).first { $0.call == .removeAccount })
        #expect(remove.reason.contains("no foci copy"))
        // A family ADAL app of the client ID keeps the foci copy its own sign-in wrote.
        #expect(!radius.ways(attacker: Self.mail, victim: "com.contoso.travel").map(\.call).contains(.removeAccount))
        // Another client ID's legacy items are never touched, family or not.
        #expect(!radius.ways(attacker: Self.mail, victim: "com.contoso.hr").map(\.call).contains(.removeAccount))
        // wipeAccount takes every legacy item of the user, foci copies included.
        #expect(radius.ways(attacker: Self.mail, victim: "com.contoso.travel").map(\.call).contains(.wipeAccount))
    }

    @Test func anADALRemovalReachesAnMSALAppOfItsFamilyThroughTheFamilyToken() throws {
        let suite = try Fixture.suite(apps: [
            Self.app(Self.mail, sdk: .msal, client: "11111111-0000-0000-0000-000000000001", family: "1"),
            Self.app(Self.expenses, sdk: .adal, client: "11111111-0000-0000-0000-000000000002", family: "1"),
        ])
        let radius = try BlastRadius(suite)
        let remove = try #require(radius.ways(attacker: Self.expenses, victim: Self.mail).first { $0.call == .removeAccount })
        #expect(remove.reason.contains("family 1") && remove.reason.contains("removeAllForUserId:clientId:"))
    }

    @Test func aSuiteOfMSALAppsIsUnchanged() throws {
        let radius = try BlastRadius(Fixture.suite())
        #expect(radius.cells.allSatisfy { $0.calls == DestructiveCall.allCases })
    }
}
