import Foundation
import Testing
@testable import SharedKeychain

@Suite("Entitlements files and app identities")
struct EntitlementsTests {
    let team = try! TeamIdentifier("ABCDE12345")

    func fixture(_ name: String) throws -> URL {
        try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "entitlements"))
    }

    @Test func readsXMLEntitlementsInOrder() throws {
        let entitlements = try Entitlements(contentsOf: fixture("mail"))
        #expect(entitlements.keychainAccessGroups == [
            "$(AppIdentifierPrefix)com.microsoft.adalcache", "$(AppIdentifierPrefix)com.contoso.shared",
        ])
    }

    @Test func readsBinaryPropertyLists() throws {
        let binary = try PropertyListSerialization.data(
            fromPropertyList: ["keychain-access-groups": ["$(AppIdentifierPrefix)com.microsoft.adalcache"]],
            format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist".utf8)))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bin-\(UUID()).entitlements")
        try binary.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try Entitlements(contentsOf: url).keychainAccessGroups == ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
    }

    @Test func readsAppGroupsAndOrdersThemAfterTheAppID() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: [
            "keychain-access-groups": ["$(AppIdentifierPrefix)com.microsoft.adalcache"],
            "com.apple.security.application-groups": ["group.com.contoso.shared"],
        ], format: .xml, options: 0)
        let entitlements = try Entitlements(propertyList: data, source: "mail")
        #expect(entitlements.applicationGroups == ["group.com.contoso.shared"])
        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: entitlements, source: "mail")
        #expect(app.accessGroupNames == ["ABCDE12345.com.microsoft.adalcache", "ABCDE12345.com.contoso.mail", "group.com.contoso.shared"])
        #expect(app.isEntitled(to: "group.com.contoso.shared"))
        // App groups alone are enough for an entitlements file.
        let only = try PropertyListSerialization.data(
            fromPropertyList: ["com.apple.security.application-groups": ["group.com.contoso.shared"]], format: .xml, options: 0)
        #expect(try Entitlements(propertyList: only, source: "widget").keychainAccessGroups.isEmpty)
    }

    @Test(arguments: ["com.contoso.shared", "group.", "group.com..x", "group.com.contoso/x"])
    func malformedAppGroupsAreRefused(_ entry: String) throws {
        let entitlements = Entitlements(keychainAccessGroups: [], applicationGroups: [entry])
        let error = #expect(throws: EntitlementsError.self) {
            try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: entitlements, source: "mail")
        }
        #expect(error?.status == .param)
        #expect(error?.description.contains(entry) == true)
    }

    @Test func identityOrdersGroupsThenAppID() throws {
        let url = try fixture("mail")
        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: Entitlements(contentsOf: url), source: url.path)
        #expect(app.accessGroups.map(\.rawValue) == [
            "ABCDE12345.com.microsoft.adalcache", "ABCDE12345.com.contoso.shared", "ABCDE12345.com.contoso.mail",
        ])
        #expect(app.appIDGroup.rawValue == "ABCDE12345.com.contoso.mail")
        #expect(app.isEntitled(to: "ABCDE12345.com.contoso.shared"))
        #expect(!app.isEntitled(to: "com.contoso.shared"))
        #expect(!app.isEntitled(to: ""))
    }

    @Test func appIDListedExplicitlyIsNotRepeated() throws {
        let app = try AppIdentity(
            bundleID: "com.contoso.mail", teamID: team,
            entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.contoso.mail", "$(AppIdentifierPrefix)x.y"]),
            source: "inline")
        #expect(app.accessGroups.map(\.rawValue) == ["ABCDE12345.com.contoso.mail", "ABCDE12345.x.y"])
    }

    @Test func appWithoutEntitlementsHasOnlyItsAppID() throws {
        let app = try AppIdentity(bundleID: "com.contoso.notes", teamID: team)
        #expect(app.accessGroups.map(\.rawValue) == ["ABCDE12345.com.contoso.notes"])
    }

    @Test(arguments: ["", "com contoso", "com..contoso", "com_contoso.mail"])
    func rejectsBadBundleIDs(_ bundleID: String) {
        #expect(throws: AccessGroupError.invalidBundleID(bundleID)) { try AppIdentity(bundleID: bundleID, teamID: team) }
    }

    /// Issue 30: a file without any keychain key was refused; a device takes it as an app signed
    /// without keychain entitlements (microsoft-authentication-library-for-objc #1499).
    @Test func fileWithoutKeychainKeysIsAnAppWithoutKeychainEntitlement() throws {
        let url = try fixture("no-groups")
        let entitlements = try Entitlements(contentsOf: url)
        #expect(!entitlements.grantsKeychainAccess)
        let app = try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: entitlements, source: url.path)
        #expect(!app.hasKeychainEntitlement)
        #expect(app.accessGroupNames.isEmpty)
        #expect(app.deviceAccessGroupList == ["com.apple.token"])
    }

    /// microsoft-authentication-library-for-objc #1591: a re-signed build's dump, as `codesign`
    /// prints it, with `TEAM.*`; `com.apple.token` pasted from the device's list is accepted.
    @Test func readsASignedDumpWithAWildcardAndTheTokenGroup() throws {
        let data = try PropertyListSerialization.data(fromPropertyList: [
            "application-identifier": "ABCDE12345.com.xamarin.xtcapp9",
            "keychain-access-groups": ["ABCDE12345.*", "com.apple.token"],
            "get-task-allow": false,
        ], format: .xml, options: 0)
        let entitlements = try Entitlements(propertyList: data, source: "dump")
        #expect(entitlements.applicationIdentifier == "ABCDE12345.com.xamarin.xtcapp9")
        let app = try AppIdentity(bundleID: "com.xamarin.xtcapp9", teamID: team, entitlements: entitlements, source: "dump")
        #expect(app.accessGroupNames == ["ABCDE12345.*", "ABCDE12345.com.xamarin.xtcapp9"])
        #expect(app.deviceAccessGroupList.last == "com.apple.token")
        #expect(app.keychainAccessGroups.first?.isWildcard == true)
        #expect(!app.isEntitled(to: "ABCDE12345.com.microsoft.adalcache"))
        #expect(app.isEntitled(to: "ABCDE12345.*"))
        #expect(try Entitlements(propertyList: entitlements.propertyListData(), source: "round trip") == entitlements)
    }

    @Test func applicationIdentifierOfAnotherAppOrShapeNamesFileAndKey() throws {
        let other = Entitlements(keychainAccessGroups: [], applicationIdentifier: "ABCDE12345.com.contoso.calendar")
        #expect(throws: EntitlementsError.applicationIdentifierMismatch(
            file: "dump", found: "ABCDE12345.com.contoso.calendar", expected: "ABCDE12345.com.contoso.mail")) {
            try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: other, source: "dump")
        }
        for value: Any in ["x", 42] {
            let data = try PropertyListSerialization.data(fromPropertyList: ["application-identifier": value], format: .xml, options: 0)
            let error = #expect(throws: EntitlementsError.self) { try Entitlements(propertyList: data, source: "x.plist") }
            guard case .wrongType("x.plist", "application-identifier", _, _) = error else {
                Issue.record("expected the key named, got \(String(describing: error))"); continue
            }
        }
    }

    @Test func wrongTypeSaysWhatWasFound() throws {
        let url = try fixture("wrong-type")
        let error = #expect(throws: EntitlementsError.self) { try Entitlements(contentsOf: url) }
        #expect(error == .wrongType(file: url.path, key: "keychain-access-groups", expected: "an array of strings", found: "a string"))
    }

    @Test func nonStringEntryIsWrongType() throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: ["keychain-access-groups": ["$(AppIdentifierPrefix)a.b", 42]], format: .xml, options: 0)
        #expect(throws: EntitlementsError.wrongType(file: "x.plist", key: "keychain-access-groups[1]", expected: "a string", found: "a number")) {
            try Entitlements(propertyList: data, source: "x.plist")
        }
    }

    @Test func unreadableFilesNameTheFile() throws {
        let garbage = try fixture("garbage")
        let error = #expect(throws: EntitlementsError.self) { try Entitlements(contentsOf: garbage) }
        guard case .unreadable(let file, _) = error else { Issue.record("expected unreadable, got \(String(describing: error))"); return }
        #expect(file == garbage.path)

        let missing = URL(fileURLWithPath: "/nonexistent/app.entitlements")
        let missingError = #expect(throws: EntitlementsError.self) { try Entitlements(contentsOf: missing) }
        #expect(missingError?.description.contains("/nonexistent/app.entitlements") == true)
    }

    @Test func malformedGroupInFileNamesFileAndEntry() {
        let error = #expect(throws: EntitlementsError.self) {
            try AppIdentity(bundleID: "com.contoso.mail", teamID: team,
                            entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)bad group"]), source: "app.entitlements")
        }
        #expect(error?.description.contains("app.entitlements") == true)
        #expect(error?.description.contains("'$(AppIdentifierPrefix)bad group'") == true)
    }

    @Test func writesWhatItReads() throws {
        let entitlements = Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)a.b", "$(AppIdentifierPrefix)c.d"])
        #expect(try Entitlements(propertyList: entitlements.propertyListData(), source: "round trip") == entitlements)
    }
}
