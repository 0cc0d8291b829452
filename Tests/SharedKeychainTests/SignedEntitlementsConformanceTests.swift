import Foundation
import Testing
@testable import SharedKeychain

/// Issue 30, point 1: entitlements as a signed app has them (a dump with `TEAM.*`, only an
/// `application-identifier`, none at all), decided as iOS decides, on every backend and API.
@Suite("Signed entitlements conformance")
struct SignedEntitlementsConformanceTests {
    func token(_ account: String = "alice", group: String? = nil) -> NewItem {
        NewItem(account: account, service: "refreshtoken-client--", group: group, data: Data("secret-1".utf8))
    }

    /// microsoft-authentication-library-for-objc #1591: a re-signed build's `keychain-access-groups`
    /// is `["TEAM.*"]`; MSAL naming `TEAM.com.microsoft.adalcache` gets -34018, the wildcard kept
    /// literally in the list the device prints, `com.apple.token` last.
    @Test(arguments: Target.all)
    func wildcardEntryIsKeptLiterallyAndGrantsNoGroupByPattern(_ target: Target) throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = try target.backend.makeStore()
        let entitlements = Entitlements(
            keychainAccessGroups: ["\(team.rawValue).*"], applicationGroups: ["group.com.xamarin.xtcapp9.group1"],
            applicationIdentifier: "\(team.rawValue).com.xamarin.xtcapp9")
        let app = target.api.client(
            app: try AppIdentity(bundleID: "com.xamarin.xtcapp9", teamID: team, entitlements: entitlements, source: "dump"), store: store)
        let msal = "\(team.rawValue).com.microsoft.adalcache"
        let refused = #expect(throws: KeychainError.self) { try app.copyMatching(KeychainQuery(group: msal, account: "alice")) }
        #expect(refused?.status == .missingEntitlement)
        if target.api == .swift {
            // The console line's words and list, the list on one line.
            let listed = #""\#(team.rawValue).*", "\#(team.rawValue).com.xamarin.xtcapp9", "group.com.xamarin.xtcapp9.group1", "com.apple.token""#
            #expect(refused?.message.hasPrefix("Client explicitly specifies access group \(msal) but is only entitled for (\(listed))") == true,
                    "\(String(describing: refused))")
        }
        #expect(throws: KeychainError.self) { try app.add(self.token(group: msal)) }

        // The default group when the first entry is a wildcard: the entry itself, literally
        // (the emulator's choice; Apple does not document it).
        #expect(try app.add(token()).group == "\(team.rawValue).*")
        #expect(try app.first(KeychainQuery(group: "\(team.rawValue).*", account: "alice")).data == Data("secret-1".utf8))
        // A sibling entitled to a concrete group of the team does not see it, nor is its group reached.
        let sibling = target.api.client(
            app: try AppIdentity(bundleID: "com.contoso.mail", teamID: team, keychainAccessGroups: [AccessGroup(msal)]), store: store)
        _ = try sibling.add(token("bob"))
        #expect(throws: KeychainError.self) { try sibling.first(KeychainQuery(account: "alice")) }
        #expect(try app.copyAll(KeychainQuery()).map(\.account) == ["alice"])
    }

    /// microsoft-authentication-library-for-objc #1499: an app signed without keychain
    /// entitlements gets -34018 for every call, with the device's message.
    @Test(arguments: Target.all)
    func appWithoutKeychainEntitlementGetsMissingEntitlementForEveryCall(_ target: Target) throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = try target.backend.makeStore()
        let identity = try AppIdentity(bundleID: "com.contoso.unsigned", teamID: team, entitlements: Entitlements(keychainAccessGroups: []), source: "dump")
        #expect(!identity.hasKeychainEntitlement)
        #expect(identity.accessGroupNames.isEmpty)
        let app = target.api.client(app: identity, store: store)
        let own = "\(team.rawValue).com.contoso.unsigned"
        let refusals: [KeychainError?] = [
            #expect(throws: KeychainError.self) { try app.add(self.token()) },
            #expect(throws: KeychainError.self) { try app.add(self.token(group: own)) },
            #expect(throws: KeychainError.self) { try app.copyMatching(KeychainQuery(account: "alice")) },
            #expect(throws: KeychainError.self) { try app.update(KeychainQuery(account: "alice"), with: ItemChange(label: "x")) },
            #expect(throws: KeychainError.self) { try app.delete(KeychainQuery(group: own)) },
        ]
        #expect(refusals.map { $0?.status } == Array(repeating: .missingEntitlement, count: 5))
        if target.api == .swift {
            #expect(refusals.allSatisfy { $0 == .noKeychainEntitlement(app: "com.contoso.unsigned") })
            #expect(refusals[0]?.message.hasPrefix("Client has neither application-identifier nor keychain-access-groups entitlements") == true)
        }
    }

    /// A dump with only `application-identifier`: the app ID is its one group.
    @Test(arguments: Target.all)
    func applicationIdentifierAloneGivesTheAppIDGroup(_ target: Target) throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = try target.backend.makeStore()
        let entitlements = Entitlements(keychainAccessGroups: [], applicationIdentifier: "\(team.rawValue).com.contoso.notes")
        let identity = try AppIdentity(bundleID: "com.contoso.notes", teamID: team, entitlements: entitlements, source: "dump")
        #expect(identity.accessGroupNames == ["\(team.rawValue).com.contoso.notes"])
        #expect(identity.deviceAccessGroupList == ["\(team.rawValue).com.contoso.notes", "com.apple.token"])
        #expect(try target.api.client(app: identity, store: store).add(token()).group == "\(team.rawValue).com.contoso.notes")
    }

    /// `com.apple.token` is CryptoTokenKit's: listed, readable (nothing is there without token
    /// extensions), never written.
    @Test(arguments: Target.all)
    func tokenGroupIsReadableButNotWritable(_ target: Target) throws {
        let team = try TeamIdentifier(Backend.uniqueTeamID())
        let store = try target.backend.makeStore()
        let entitlements = Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.contoso.mail", AppIdentity.tokenGroup])
        let identity = try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: entitlements, source: "dump")
        #expect(identity.deviceAccessGroupList == ["\(team.rawValue).com.contoso.mail", "com.apple.token"])
        let app = target.api.client(app: identity, store: store)
        let write = #expect(throws: KeychainError.self) { try app.add(self.token(group: AppIdentity.tokenGroup)) }
        #expect(write?.status == .missingEntitlement)
        let read = #expect(throws: KeychainError.self) { try app.copyMatching(KeychainQuery(group: AppIdentity.tokenGroup)) }
        #expect(read?.status == .itemNotFound)
    }
}
