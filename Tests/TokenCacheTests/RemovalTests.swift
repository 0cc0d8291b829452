import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// `remove`, `wipeAccount`, `wipeCacheForAllAccounts` and the wipe record.
@Suite("Removal and wipe")
struct RemovalTests {
    static let wipeTime = "2023-11-14T22:13:20Z"

    @Test(arguments: Backend.memoryAndKeyring)
    func removeInOneFamilyAppDeletesTheFamilyTokenASiblingReliedOn(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        let bob = try suite.legacy.signIn(username: "bob@contoso.com")
        let user = "\(alice.account.homeAccountID)-login.windows.net"
        #expect(try suite.calendar.accounts() == [alice.account])

        let deleted = try suite.mail.remove(account: alice.account.homeAccountID)
        // Mail's access, refresh, family refresh and ID tokens: every credential with its client_id
        // (MSIDDefaultAccessorSSOIntegrationTests testClearCacheForAccount_whenAccountProvided_shouldRemoveTokens).
        #expect(deleted == 4)
        // The account item stays (clearAccounts is NO for removeAccount).
        let left = try suite.items().filter { $0.account == user }
        #expect(left.compactMap(\.type).sorted() == [1003])
        #expect(try suite.item(account: user, service: "refreshtoken-1--") == nil)
        #expect(try suite.mail.accounts().isEmpty)
        #expect(try suite.calendar.accounts().isEmpty)
        // Calendar relied on that family token.
        let error = #expect(throws: TokenCacheError.self) {
            try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        }
        guard case .interactionRequired(_, let lastWipe)? = error else {
            Issue.record("expected interactionRequired, got \(String(describing: error))")
            return
        }
        #expect(lastWipe == WipeRecord(bundleID: "com.contoso.mail", wipeTime: suite.clock.now))
        #expect(error?.message.hasSuffix("; last wiped by com.contoso.mail at \(Self.wipeTime)") == true)
        // Other users and other apps' tokens are untouched.
        #expect(try suite.legacy.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"]).accessToken == bob.accessToken)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func removeLeavesAFamilyTokenAnotherAppWroteLast(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        // Calendar redeems the family token, and so becomes its client_id.
        _ = try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"])
        #expect(try suite.mail.remove(account: "alice@contoso.com") == 3)
        suite.clock.advance(by: 3600)
        // Calendar's own refresh token goes first; the family token is still there for it.
        #expect(try suite.calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["calendars.read"]).source == .refreshToken)
        #expect(try suite.items().contains { $0.service == "refreshtoken-1--" })
        #expect(try suite.calendar.accounts().map(\.username) == ["alice@contoso.com"])
        // Mail is signed out: its list hides alice though the family token would show her.
        #expect(try suite.mail.accounts().isEmpty)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func removeOfAnUnknownAccountOrWithoutRefreshTokens(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let error = #expect(throws: TokenCacheError.self) { try suite.mail.remove(account: "nobody@contoso.com") }
        #expect(error == .accountNotFound("nobody@contoso.com"))
        #expect(error?.status == .itemNotFound)
        try suite.mail.signIn(username: "alice@contoso.com")
        // Legacy has no credentials for alice: nothing deleted, so no wipe record.
        #expect(try suite.legacy.remove(account: "alice@contoso.com") == 0)
        #expect(try suite.legacy.wipeInfo() == nil)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func wipeAccountDeletesEveryAppsItemsOfThatUser(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        try suite.legacy.signIn(username: "alice@contoso.com")
        let bob = try suite.mail.signIn(username: "bob@contoso.com")
        let user = "\(alice.account.homeAccountID)-login.windows.net"
        // Mail's AT, RT, family RT and IDT, legacy's AT, RT and IDT, and the account record.
        let aliceItems = try suite.items().filter { $0.account == user }.count
        #expect(aliceItems == 8)
        suite.clock.advance(by: 60)
        // Every client's credentials and the account records (removeAccountImpl with wipeAccount:
        // clientId nil, clearAccounts YES; MSALPublicClientApplicationTests
        // testSignoutWithAccount_whenNonNilAccount_andWipeAccountTrue_andBrokerDisabled_shouldWipeAccount).
        #expect(try suite.calendar.wipeAccount("alice@contoso.com") == aliceItems)
        #expect(try suite.items().filter { $0.account == user }.isEmpty)
        #expect(try suite.mail.accounts() == [bob.account])
        #expect(try suite.legacy.accounts().isEmpty)
        #expect(try suite.mail.wipeInfo() == WipeRecord(bundleID: "com.contoso.calendar", wipeTime: suite.clock.now))
        let error = #expect(throws: TokenCacheError.self) {
            try suite.legacy.acquireTokenSilent(account: alice.account.homeAccountID, scopes: ["user.read"])
        }
        #expect(error?.message.contains("last wiped by com.contoso.calendar at 2023-11-14T22:14:20Z") == true)
        #expect(try suite.mail.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"]).source == .cache)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func wipeOfAllAccountsByOneAppEndsEveryAppsSession(_ backend: Backend) throws {
        let counting = CountingStore(try backend.makeStore())
        let suite = try Suite(backend, store: counting)
        let alice = try suite.mail.signIn(username: "alice@contoso.com")
        try suite.legacy.signIn(username: "bob@contoso.com")
        let before = try suite.items().count
        counting.reset()
        // Calendar never signed anyone in, and may wipe everything anyway.
        #expect(try suite.calendar.wipeCacheForAllAccounts() == before)
        // The intent journaled first (one read of the group for its keys, one add), then the
        // SDK's two identical deletes of the whole group (clearCacheForAllAccountsWithContext:
        // the default accessor's, then the legacy one's), then the intent replaced by the
        // emulator's record of the deletion (one add, one delete, one read of the records kept),
        // all in the journal group. Nothing is written to the group after.
        #expect(counting.calls == ["items": 2, "add": 2, "delete": 3])
        // A full wipe leaves no trace on the device: no wipe record.
        #expect(try suite.items().isEmpty)
        let error = #expect(throws: TokenCacheError.self) {
            try suite.mail.acquireTokenSilent(account: alice.account.homeAccountID, scopes: ["user.read"])
        }
        #expect(error == .interactionRequired(reason: "no account '\(alice.account.homeAccountID)' is in the cache", lastWipe: nil))
        #expect(try suite.mail.wipeInfo() == nil)
        #expect(try suite.mail.accounts().isEmpty)
        #expect(try suite.mail.wipeCacheForAllAccounts() == 0)
    }

    /// The wipe record is MSAL's: account `TokenWipe`, the generic, no service, no type,
    /// `afterFirstUnlockThisDeviceOnly`, its data an NSKeyedArchiver archive of `{bundleId,
    /// wipeTime}`, written after each refresh-token delete (MSIDKeychainTokenCache.m
    /// saveWipeInfoWithContext; MSIDAccountCredentialCache removeCredential;
    /// MSIDKeychainTokenCacheIntegrationTests test_whenSaveWipeInfo_shouldReturnBundleIdAndWipeTime).
    @Test(arguments: Backend.memoryAndKeyring)
    func theWipeRecordIsTheSDKsArchive(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        try suite.mail.remove(account: "alice@contoso.com")
        let record = try #require(try suite.items().first { $0.account == "TokenWipe" })
        #expect(record.service == "")
        #expect(record.generic == Data("Microsoft.ADAL.WipeAll.1".utf8))
        #expect(record.type == nil)
        #expect(record.accessibility == .afterFirstUnlockThisDeviceOnly)
        let archived = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSString.self, NSDate.self], from: record.data) as? NSDictionary)
        #expect(archived["bundleId"] as? String == "com.contoso.mail")
        #expect(archived["wipeTime"] as? Date == suite.clock.now)
        #expect(try suite.mail.wipeInfo() == WipeRecord(bundleID: "com.contoso.mail", wipeTime: suite.clock.now))
        // A record this emulator wrote earlier (JSON) is still read, and the next write converts it.
        try suite.mail.keychain.update(
            KeychainQuery(group: suite.group, account: "TokenWipe"),
            with: ItemChange(data: Data(#"{"bundleId":"com.contoso.old","wipeTime":"2023-11-14T22:13:20Z"}"#.utf8)))
        #expect(try suite.mail.wipeInfo()?.bundleID == "com.contoso.old")
    }
}
