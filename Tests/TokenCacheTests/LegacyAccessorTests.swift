import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

extension Suite {
    /// An ADAL app of the suite (`sdk: .adal`), by default with Mail's client ID, as the apps
    /// of a suite share one.
    func adalApp(_ bundleID: String = "com.contoso.adal", client: String = Suite.mailClient, family: String? = "1") throws -> TokenCache {
        let base = try app(bundleID, client: client, family: family)
        var configuration = base.configuration
        configuration.sdk = .adal
        return try TokenCache(keychain: base.keychain, configuration: configuration, now: clock.function)
    }

    /// ADAL's legacy items of the group: generic `MSOpenTech.ADAL.1`, no type.
    func legacyItems() throws -> [KeychainItem] {
        try items().filter { $0.generic == Data("MSOpenTech.ADAL.1".utf8) && $0.type == nil }
    }

    /// The legacy items decoded, by client ID.
    func legacyTokens() throws -> [LegacyTokenCacheItem] {
        try legacyItems().map { try LegacyTokenCacheItem(archive: $0.data) }
    }
}

/// ADAL apps in the shared group: the legacy accessor's items as IdentityCore writes, reads and
/// deletes them, and MSAL's use of them. Each test names the IdentityCore test its expectation
/// comes from, where there is one.
@Suite("ADAL's legacy items (the legacy accessor)")
struct LegacyAccessorTests {
    static let alice = "alice@contoso.com"
    /// base64url("alice@contoso.com").
    static let aliceAccount = "YWxpY2VAY29udG9zby5jb20"

    /// MSIDLegacyCacheKeyTests testLegacyTokenCacheKey_withAllParameters_shouldReturnKey,
    /// ..._withAllParametersUpperCase_shouldReturnKeyLowerCase and ..._whenNoResource_shouldReturnKey.
    @Test func keysAreIdentityCoresStrings() {
        let authority = "https://login.microsoftonline.com/common"
        let key = LegacyTokenCacheKey(authority: authority, clientID: "client", resource: "resource", userID: "test_upn@test_devex.com")
        #expect(key.account == "dGVzdF91cG5AdGVzdF9kZXZleC5jb20")
        #expect(key.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|cmVzb3VyY2U|Y2xpZW50")
        #expect(key.layout.generic == Data("MSOpenTech.ADAL.1".utf8))
        #expect(key.layout.type == nil)
        let upper = LegacyTokenCacheKey(
            authority: "https://loGin.microsoftonline.com/common", clientID: "clIENt", resource: "reSOURce", userID: "TEst_upn@test_DEVEX.com")
        #expect(upper.account == key.account && upper.service == key.service)
        let noResource = LegacyTokenCacheKey(authority: authority, clientID: "client", resource: nil, userID: "test_upn@test_devex.com")
        #expect(noResource.service == "MSOpenTech.ADAL.1|aHR0cHM6Ly9sb2dpbi5taWNyb3NvZnRvbmxpbmUuY29tL2NvbW1vbg|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|Y2xpZW50")
        #expect(LegacyTokenCacheKey.components(ofService: noResource.service)?.clientID == "client")
    }

    /// MSIDLegacyTokenCacheItemTests (encode/decode) and MSIDKeyedArchiverSerializer's class
    /// map: the root object is archived as ADTokenCacheStoreItem, the user information as
    /// ADUserInformation, with MSIDLegacyTokenCacheItem encodeWithCoder's keys.
    @Test func theArchiveHasADALsClassNamesAndKeys() throws {
        let issuer = EmulatedIssuer()
        let user = issuer.user(username: Self.alice, tenant: "common")
        let idToken = issuer.idToken(for: user, clientID: "client", environment: "login.microsoftonline.com", issuedAt: Date(), expiresOn: Date())
        let item = LegacyTokenCacheItem(
            authority: "https://login.microsoftonline.com/common", refreshToken: "rt", idToken: idToken, clientID: "client",
            familyID: "1", homeAccountID: user.homeAccountID)
        let data = try item.archive()
        #expect(try LegacyTokenCacheItem(archive: data) == item)
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["$archiver"] as? String == "NSKeyedArchiver")
        let objects = try #require(plist["$objects"] as? [Any])
        let classNames = objects.compactMap { ($0 as? [String: Any])?["$classname"] as? String }
        #expect(classNames.contains("ADTokenCacheStoreItem") && classNames.contains("ADUserInformation"))
        #expect(!classNames.contains { $0.contains("Archived") })
        let root = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["authority"] != nil })
        let keys: Set<String> = [
            "authority", "accessToken", "refreshToken", "userInformation", "accessTokenType", "clientId", "resource", "expiresOn",
            "cachedAt", "familyId", "additionalClient", "additionalServer", "homeAccountId", "enrollmentId", "applicationIdentifier",
        ]
        #expect(keys.isSubset(of: Set(root.keys)))
        let information = try #require(objects.compactMap { $0 as? [String: Any] }.first { $0["rawIdToken"] != nil })
        #expect(Set(["rawIdToken", "allClaims", "userId", "userIdDisplayable"]).isSubset(of: Set(information.keys)))
    }

    /// MSIDLegacyAccessorSSOIntegrationTests
    /// testSaveTokensWithFactory_whenMultiResourceFOCIResponse_savesTokensToBothAccessors:
    /// 1 legacy AT and 2 legacy RTs (the client's and foci-<fid>, both with the family), 2
    /// MSAL-format RTs (the family's and the client's without family_id), no MSAL AT or ID
    /// token; ..._savesAppMetadata: one app metadata. ADAL writes no account metadata.
    @Test(arguments: Backend.memoryAndKeyring)
    func anADALSignInWritesLegacyItemsBesideMSALsFormat(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        let legacy = try suite.legacyItems()
        #expect(legacy.count == 3)
        #expect(legacy.allSatisfy { $0.account == Self.aliceAccount && $0.accessibility == .afterFirstUnlockThisDeviceOnly })
        #expect(legacy.allSatisfy { $0.service.hasPrefix("MSOpenTech.ADAL.1|") })
        let tokens = try suite.legacyTokens()
        let accessTokens = tokens.filter { $0.kind == .accessToken }
        let refreshTokens = tokens.filter { $0.kind == .refreshToken }
        #expect(accessTokens.count == 1 && accessTokens.first?.resource == LegacyResource.graph)
        #expect(Set(refreshTokens.map(\.clientID)) == [Suite.mailClient, "foci-1"])
        #expect(refreshTokens.allSatisfy { $0.familyID == "1" && $0.resource == nil })
        // The RT's service carries the nil-resource GUID, unencoded.
        #expect(legacy.filter { $0.service.contains("|CC3513A0-0E69-4B4D-97FC-DFB6C91EE132|") }.count == 2)
        let typed = try suite.items().filter { $0.type != nil }
        #expect(typed.filter { $0.type == 2002 }.count == 2)
        #expect(typed.filter { $0.type == 2001 || $0.type == 2003 || $0.type == 5001 }.isEmpty)
        #expect(typed.filter { $0.type == 3001 }.count == 1)
        #expect(typed.filter { $0.type == 1003 }.count == 1)
        let ownRefreshToken = try #require(try suite.item(account: typed[0].account, service: "refreshtoken-\(Suite.mailClient)--"))
        #expect(suite.json(ownRefreshToken)["family_id"] == nil)
    }

    /// MSIDDefaultAccessorSSOIntegrationTests
    /// testAllAccountsWithEnvironment_whenMatchingTokenOnlyInLegacyCache_andNoAliases_shouldReturnMatchingAccount
    /// and MSIDLegacyAccessorSSOIntegrationTests
    /// testGetRefreshTokenWithAccount_whenNoFamilyId_andTokenInSecondaryAccessor_shouldReturnToken:
    /// with only ADAL's legacy items (a response without client_info,
    /// testSaveTokens_withNoHomeAccountIdForSecondaryFormat_shouldSaveToLegacyFormatOnly), MSAL
    /// lists the user and redeems the legacy refresh token.
    @Test(arguments: Backend.memoryAndKeyring)
    func msalFallsBackToTheLegacyItems(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.adalApp().signIn(username: Self.alice)
        // Leave only the legacy items, as an ADAL response without client_info does.
        for item in try suite.items() where item.type != nil {
            _ = try suite.mail.keychain.delete(KeychainQuery(group: suite.group, account: item.account, service: item.service, type: item.type))
        }
        #expect(try suite.mail.accounts().map(\.username) == [Self.alice])
        let result = try suite.mail.acquireTokenSilent(account: Self.alice, scopes: ["user.read"])
        #expect(result.source == .refreshToken)
        #expect(result.account.username == Self.alice)
        // The redemption wrote MSAL's items for the user.
        #expect(try suite.items().contains { $0.type == 2001 })
    }

    /// The family's legacy copy (foci-<fid>) is MSAL's family fallback
    /// (MSIDLegacyAccessorSSOIntegrationTests
    /// testGetRefreshTokenWithAccount_whenFamilyIdProvided_andTokenInSecondaryAccessor_shouldReturnToken).
    @Test(arguments: Backend.memoryAndKeyring)
    func aSiblingOfTheFamilyRedeemsTheLegacyFamilyCopy(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.adalApp().signIn(username: Self.alice)
        for item in try suite.items() where item.type != nil && item.type != 1003 {
            _ = try suite.mail.keychain.delete(KeychainQuery(group: suite.group, account: item.account, service: item.service, type: item.type))
        }
        let result = try suite.calendar.acquireTokenSilent(account: Self.alice, scopes: ["calendars.read"])
        #expect(result.source == .familyRefreshToken)
    }

    /// Done means: an ADAL app and an MSAL app of one suite share a sign-in. MSAL gets single
    /// sign-on from the ADAL sign-in; the ADAL app, from the MSAL app's family token.
    @Test(arguments: Backend.memoryAndKeyring)
    func anADALAppAndAnMSALAppShareASignIn(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        #expect(try suite.mail.accounts().map(\.username) == [Self.alice])
        #expect(try suite.calendar.acquireTokenSilent(account: Self.alice, scopes: ["user.read"]).source == .familyRefreshToken)
        // The other way: an MSAL sign-in of bob, then the ADAL app acquires silently for him.
        try suite.calendar.signIn(username: "bob@contoso.com")
        let bob = try adal.acquireTokenSilent(account: "bob@contoso.com", scopes: ["user.read"])
        #expect(bob.source == .familyRefreshToken)
        // Redeemed by ADAL, so now in ADAL's legacy format too.
        #expect(try suite.legacyItems().contains { $0.account == LegacyTokenCacheKey.account(userID: "bob@contoso.com") })
    }

    /// ADAL's silent order (ADAL ADALAcquireTokenSilentHandler getToken, tryMRRT, tryFRT): the
    /// legacy access token while valid; then, since the app's refresh token names a family, the
    /// family's token first.
    @Test(arguments: Backend.memoryAndKeyring)
    func adalSilentUsesItsAccessTokenThenTheFamilyToken(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        #expect(try adal.acquireTokenSilent(account: Self.alice, scopes: ["user.read"]).source == .cache)
        suite.clock.advance(by: 3600)
        #expect(try adal.acquireTokenSilent(account: Self.alice, scopes: ["user.read"]).source == .familyRefreshToken)
        // An app outside any family uses its own multi-resource refresh token.
        let solo = try suite.adalApp("com.contoso.solo", client: Suite.legacyClient, family: nil)
        try solo.signIn(username: Self.alice)
        #expect(try solo.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], forceRefresh: true).source == .refreshToken)
    }

    /// An ADAL app lists the users of the legacy refresh tokens of its client or family (the
    /// legacy accessor's accountsWithAuthority; MSIDLegacyAccessorSSOIntegrationTests
    /// testAllAccountsWithEnvironment_whenFamilyIdProvided_andTokensInPrimaryCache_shouldReturnAccounts),
    /// not MSAL's account records.
    @Test(arguments: Backend.memoryAndKeyring)
    func anADALAppListsOnlyLegacyUsers(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        try suite.calendar.signIn(username: "bob@contoso.com")
        #expect(try adal.accounts().map(\.username) == [Self.alice])
        #expect(Set(try suite.mail.accounts().map(\.username)) == [Self.alice, "bob@contoso.com"])
    }

    /// Done means: the MSAL app's removeAccount takes the ADAL app's tokens. The legacy
    /// accessor's clearCacheForAccount with MSAL's client ID (MSIDLegacyAccessorSSOIntegrationTests
    /// testClearCacheForAccountAndClientId_whenTokensInCache_shouldRemoveCorrectTokens;
    /// MSIDDefaultAccessorSSOIntegrationTests testClearCacheForAccount_whenAccountProvided_shouldRemoveTokens,
    /// "plus the legacy RT"): every legacy item of that client ID goes, the foci-<fid> copy stays,
    /// the wipe record is written.
    @Test(arguments: Backend.memoryAndKeyring)
    func msalsRemoveAccountTakesTheADALAppsTokensButTheFamilyCopy(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        try suite.mail.remove(account: Self.alice)
        #expect(try suite.legacyTokens().map(\.clientID) == ["foci-1"])
        #expect(try suite.mail.wipeInfo()?.bundleID == "com.contoso.mail")
        // The ADAL app's own tokens are gone: it lives on only through the family copy.
        #expect(try adal.acquireTokenSilent(account: Self.alice, scopes: ["user.read"], forceRefresh: true).source == .familyRefreshToken)
        // An app with another client ID removes none of them.
        try suite.legacy.signIn(username: Self.alice)
        let before = try suite.legacyItems().count
        try suite.legacy.remove(account: Self.alice)
        #expect(try suite.legacyItems().count == before)
    }

    /// MSAL's wipeAccount: the legacy accessor's bulk delete {account b64(UPN), generic}, every
    /// client's legacy items of the user, foci copies included, then one wipe record.
    @Test(arguments: Backend.memoryAndKeyring)
    func wipeAccountTakesEveryLegacyItemOfTheUser(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.adalApp().signIn(username: Self.alice)
        try suite.adalApp("com.contoso.other", client: Suite.legacyClient, family: nil).signIn(username: Self.alice)
        try suite.adalApp().signIn(username: "bob@contoso.com")
        try suite.mail.wipeAccount(Self.alice)
        #expect(try suite.legacyItems().allSatisfy { $0.account == LegacyTokenCacheKey.account(userID: "bob@contoso.com") })
        #expect(try !suite.legacyItems().isEmpty)
    }

    /// An ADAL app's removal (ADAL removeAllForUserId:clientId:) deletes its legacy items, then
    /// its client's MSAL-format credentials, and writes no sign-in state.
    @Test(arguments: Backend.memoryAndKeyring)
    func anADALAppsRemovalKeepsNoSignInState(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let adal = try suite.adalApp()
        try adal.signIn(username: Self.alice)
        try adal.remove(account: Self.alice)
        #expect(try suite.legacyTokens().map(\.clientID) == ["foci-1"])
        #expect(try suite.items().filter { $0.type == 5001 }.isEmpty)
        #expect(try suite.items().filter { $0.service == "refreshtoken-\(Suite.mailClient)--" }.isEmpty)
    }

    /// cache export / import keep ADAL's legacy items out of MSAL's JSON and say how many.
    @Test(arguments: Backend.memoryAndKeyring)
    func exportAndImportLeaveLegacyItemsOutAndSaySo(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.adalApp().signIn(username: Self.alice)
        let exported = try suite.mail.exportCacheReporting()
        #expect(exported.legacyItemsLeftOut == 3)
        let text = String(decoding: exported.data, as: UTF8.self)
        #expect(!text.contains("MSOpenTech") && !text.contains("foci-"))
        #expect(text.contains("refreshtoken"))
        let imported = try suite.mail.importCacheReporting(exported.data)
        #expect(imported.legacyItemsLeftOut == 3)
        #expect(imported.written > 0)
        #expect(try suite.legacyItems().count == 3)
        // A group without legacy items reports none.
        let other = try Suite(backend)
        try other.mail.signIn(username: Self.alice)
        #expect(try other.mail.exportCacheReporting().legacyItemsLeftOut == 0)
    }

    /// The keychain calls, as `--trace` shows them. An ADAL sign-in
    /// (MSIDLegacyTokenCacheAccessor saveTokensWithConfiguration, then the default accessor's
    /// saveSSOStateWithConfiguration): legacy AT, legacy RT, foci copy, family RT, the client's
    /// RT, app metadata, account; each update-then-add; no account metadata.
    @Test(arguments: Backend.memoryAndKeyring)
    func anADALSignInsKeychainCallsAreTheLegacyAccessors(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = KeychainTraceTests.Recorder()
        let base = try suite.adalApp()
        var configuration = base.configuration
        configuration.trace = recorder.trace
        let adal = try TokenCache(keychain: base.keychain, configuration: configuration, now: suite.clock.function)
        let result = try adal.signIn(username: Self.alice)
        let writes = recorder.take().filter { $0.function != .copyMatching }
        let c = Suite.mailClient
        let legacy = { (resource: String?, client: String) in
            LegacyTokenCacheKey(environment: "login.windows.net", realm: "common", clientID: client, resource: resource, userID: Self.alice).service
        }
        let services = [legacy(LegacyResource.graph, c), legacy(nil, c), legacy(nil, "foci-1"),
                        "refreshtoken-1--", "refreshtoken-\(c)--", "appmetadata-\(c)", result.tenantID]
        #expect(writes.map { "\($0.function.rawValue) \($0.service ?? "")" } == services.flatMap { ["SecItemUpdate \($0)", "SecItemAdd \($0)"] })
        #expect(writes.filter { $0.function == .add }.allSatisfy { $0.accessibility == .afterFirstUnlockThisDeviceOnly })
        #expect(writes.prefix(6).filter { $0.function == .add }.allSatisfy { $0.generic == "MSOpenTech.ADAL.1" && $0.type == nil })
    }

    /// MSAL's removeAccount, legacy part (MSIDLegacyTokenCacheAccessor clearCacheForAccount,
    /// removeTokenEnvironment:): after the default accessor's deletes, one read of the user's
    /// legacy items, then a delete by exact key {account, service, generic} for each of this
    /// client's, the wipe record after the refresh token's; then signed_out.
    @Test(arguments: Backend.memoryAndKeyring)
    func msalsRemoveAccountTracesTheLegacyDeletes(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.adalApp().signIn(username: Self.alice)
        let recorder = KeychainTraceTests.Recorder()
        var configuration = suite.mail.configuration
        configuration.trace = recorder.trace
        let mail = try TokenCache(keychain: suite.mail.keychain, configuration: configuration, now: suite.clock.function)
        try mail.remove(account: Self.alice)
        let calls = recorder.take()
        let legacyReads = calls.filter { $0.function == .copyMatching && $0.generic == "MSOpenTech.ADAL.1" }
        #expect(legacyReads.contains { $0.account == Self.aliceAccount && $0.service == nil })
        let steps = calls.filter { $0.function != .copyMatching }
        let legacyDeletes = steps.enumerated().filter { $0.element.function == .delete && $0.element.generic == "MSOpenTech.ADAL.1" }
        #expect(legacyDeletes.count == 2)
        #expect(legacyDeletes.allSatisfy { $0.element.account == Self.aliceAccount && $0.element.service?.hasPrefix("MSOpenTech.ADAL.1|") == true })
        // The RT's delete (the nil-resource GUID) is followed by the wipe record; the AT's is not.
        for (index, call) in legacyDeletes {
            let isRefreshToken = call.service?.contains(LegacyTokenCacheKey.nilKey) == true
            #expect((steps[index + 1].account == WipeRecord.account) == isRefreshToken)
        }
        // The ADAL sign-in wrote no account metadata: signed_out is this client's first item.
        #expect(steps.suffix(2).map { "\($0.function.rawValue) \($0.service ?? "")" } == [
            "SecItemUpdate \(Suite.mailClient)", "SecItemAdd \(Suite.mailClient)",
        ])
    }
}
