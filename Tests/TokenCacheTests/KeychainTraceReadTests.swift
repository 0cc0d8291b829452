import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// The reads of silent acquisition and of the account list, call for call, against the
/// queries IdentityCore makes, written down from its source (file and method named at each
/// step). Reads are compared with every attribute their query has (account, service, generic,
/// type); writes and deletes by their key and type, as the other trace tests compare them.
extension KeychainTraceTests {
    /// One call as the tests compare it.
    static func step(_ call: KeychainCall) -> String {
        let generic = call.function == .copyMatching ? call.generic : nil
        return [
            call.function.rawValue, call.account.map { "account=\($0)" }, call.service.map { "service=\($0)" },
            generic.map { "generic=\($0)" }, call.type.map { "type=\($0)" },
        ].compactMap { $0 }.joined(separator: " ")
    }

    /// The steps of `calls`; no operation reads the emulator's earlier layout (type 4001).
    static func steps(_ calls: [KeychainCall]) -> [String] {
        #expect(!calls.contains { $0.type == ItemType.legacySignInState }, "the SDK never reads {type 4001}")
        return calls.map(step)
    }

    /// The queries IdentityCore builds, as `SecItemCopyMatching` steps.
    enum SDK {
        static func read(account: String? = nil, service: String? = nil, generic: String? = nil, type: UInt32? = nil) -> String {
            step(KeychainCall(function: .copyMatching, account: account, service: service, generic: generic, type: type, status: .success))
        }

        static func write(_ function: KeychainCall.Function, account: String?, service: String?, type: UInt32?) -> String {
            step(KeychainCall(function: function, account: account, service: service, type: type, status: .success))
        }

        /// MSIDAccountMetadataCacheAccessor signInStateForHomeAccountId / updateSignInState
        /// (skipCache YES): the client's item, `{account authority_map, service <cid>, type 5001}`.
        static func accountMetadata(_ client: String) -> String { read(account: "authority_map", service: client, type: 5001) }
        /// MSIDAccountCredentialCache checkFRTEnabled: `{account useSingleFRT, service useSingleFRT}`.
        static let useSingleFRT = read(account: "useSingleFRT", service: "useSingleFRT")
        /// MSIDDefaultTokenCacheAccessor getAccessTokenForAccount (environment aliases, subset
        /// target: no account, no service): `{generic accesstoken-<cid>-<realm>, type 2001}`.
        static func accessTokens(_ client: String, _ realm: String) -> String {
            read(generic: "accesstoken-\(client)-\(realm)", type: 2001)
        }
        /// MSIDDefaultSilentTokenRequest appMetadataWithError, getAppMetadataEntries:
        /// `{service appmetadata-<cid>, type 3001}`.
        static func appMetadata(_ client: String) -> String { read(service: "appmetadata-\(client)", type: 3001) }
        /// getRefreshableTokenWithAccount (MSIDDefaultCredentialCacheQuery, refresh token):
        /// `{service refreshtoken-<cid|fid>--, generic refreshtoken-<cid|fid>-, type 2002}`.
        static func refreshToken(_ clientOrFamily: String) -> String {
            read(service: "refreshtoken-\(clientOrFamily)--", generic: "refreshtoken-\(clientOrFamily)-", type: 2002)
        }
        /// getIDTokenForAccount: `{service idtoken-<cid>-<realm>-, generic idtoken-<cid>-<realm>, type 2003}`.
        static func idToken(_ client: String, _ realm: String) -> String {
            read(service: "idtoken-\(client)-\(realm)-", generic: "idtoken-\(client)-\(realm)", type: 2003)
        }
        /// getAccountForIdentifier (home account ID given, realm of the authority): `{service <realm>, type 1003}`.
        static func account(realm: String) -> String { read(service: realm, type: 1003) }
        /// MSIDAccountCredentialCache saveAccount, the previous account: `{account, service <realm>, type 1003}`.
        static func account(_ home: String, realm: String) -> String { read(account: home, service: realm, type: 1003) }
        /// homeAccountIdForLegacyId (MSIDDefaultAccountCacheQuery with a username): `{generic <upn>, type 1003}`.
        static func account(username: String) -> String { read(generic: username, type: 1003) }
        /// saveAccessTokenWithConfiguration, the intersecting access tokens:
        /// `{account <hid>-<env>, generic accesstoken-<cid>-<realm>, type 2001}`.
        static func intersectingAccessTokens(_ home: String, _ client: String, _ realm: String) -> String {
            read(account: home, generic: "accesstoken-\(client)-\(realm)", type: 2001)
        }
        /// MSIDKeychainTokenCache wipeInfo: `{account TokenWipe, generic Microsoft.ADAL.WipeAll.1}`.
        static let wipeInfo = read(account: "TokenWipe", generic: "Microsoft.ADAL.WipeAll.1")
        /// MSIDLegacyTokenCacheAccessor getTokenByLegacyUserId, one alias: `{account b64(upn), service, generic MSOpenTech.ADAL.1}`.
        static func legacyRefreshToken(_ username: String, realm: String, client: String) -> String {
            let key = LegacyTokenCacheKey(environment: "login.windows.net", realm: realm, clientID: client, resource: nil, userID: username)
            return read(account: key.account, service: key.service, generic: "MSOpenTech.ADAL.1")
        }
        /// MSIDLegacyTokenCacheAccessor accountsWithAuthority: every ADAL item, `{generic MSOpenTech.ADAL.1}`.
        static let legacyItems = read(generic: "MSOpenTech.ADAL.1")

        /// saveData: the update, and the add when the update found nothing.
        static func save(_ account: String, _ service: String, _ type: UInt32?, new: Bool) -> [String] {
            [write(.update, account: account, service: service, type: type)] + (new ? [write(.add, account: account, service: service, type: type)] : [])
        }

        /// A token response saved by MSIDTokenResponseValidator validateAndSaveTokenResponse and
        /// MSIDDefaultTokenCacheAccessor saveTokensWithConfiguration: account metadata read (and
        /// written when it changes), the intersecting access tokens read and deleted, AT, IDT,
        /// useSingleFRT (a family response), family RT, own RT, app metadata, the previous account
        /// read, the account.
        static func savedResponse(
            client: String, home: String, realm: String, environment: String = "login.windows.net",
            metadataWritten: Bool, newForClient: Bool, replacedAccessToken: Bool, newAccessToken: Bool
        ) -> [String] {
            var steps = [accountMetadata(client)]
            if metadataWritten { steps += save("authority_map", client, 5001, new: newForClient) }
            // updateAuthorityURL: a new entry maps the `/common` request to the tenant (from the
            // memory cache: no read), the item written again.
            if newForClient { steps += save("authority_map", client, 5001, new: false) }
            steps.append(intersectingAccessTokens(home, client, realm))
            let accessTokenService = "accesstoken-\(client)-\(realm)-user.read"
            if replacedAccessToken { steps.append(write(.delete, account: home, service: accessTokenService, type: 2001)) }
            steps += save(home, accessTokenService, 2001, new: newAccessToken)
            steps += save(home, "idtoken-\(client)-\(realm)-", 2003, new: newForClient)
            steps.append(useSingleFRT)
            steps += save(home, "refreshtoken-1--", 2002, new: false)
            steps += save(home, "refreshtoken-\(client)--", 2002, new: newForClient)
            steps += save(environment, "appmetadata-\(client)", 3001, new: newForClient)
            steps.append(account(home, realm: realm))
            steps += save(home, realm, 1003, new: false)
            return steps
        }
    }

    /// Silent acquisition answered from the cache. The app's account first (the MSALAccount it
    /// passes: the emulator finds it by username as homeAccountIdForLegacyId queries), then
    /// MSALPublicClientApplication acquireTokenSilentWithParameters (issuerAuthorityWithAccount:
    /// getAuthorityURL, the account metadata; accountStateForParameters: the account metadata
    /// again, skipCache YES), MSIDSilentTokenRequest executeRequestImpl (accessTokenWithError),
    /// fetchCachedTokenAndCheckForFRTFirst:YES (MSIDDefaultSilentTokenRequest
    /// familyRefreshTokenWithError: app metadata, then getRefreshTokenWithAccount: checkFRTEnabled
    /// and the family's refresh token, found), MSIDDefaultSilentTokenRequest
    /// resultWithAccessToken (getIDToken, getAccountForIdentifier). Nothing is written.
    @Test(arguments: Backend.memoryAndKeyring)
    func silentFromTheCacheReadsAsIdentityCore(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        let signedIn = try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        #expect(try app.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .cache)
        let c = Self.client
        let tid = signedIn.tenantID
        #expect(Self.steps(recorder.take()) == [
            SDK.account(username: "alice@contoso.com"), SDK.accountMetadata(c), SDK.accountMetadata(c), SDK.accessTokens(c, tid),
            SDK.appMetadata(c), SDK.useSingleFRT, SDK.refreshToken("1"), SDK.idToken(c, tid), SDK.account(realm: tid),
        ])
    }

    /// Silent acquisition through the app's own refresh token, the access token expired past
    /// its extended lifetime: accessTokenWithError, then MSIDSilentTokenRequest
    /// executeRequestImpl removes it (removeAccessToken), shouldCheckForFRTFirst
    /// (checkFRTEnabled), fetchCachedTokenAndCheckForFRTFirst:NO (appRefreshTokenWithError:
    /// checkFRTEnabled, the app's refresh token, found), then the response saved.
    @Test(arguments: Backend.memoryAndKeyring)
    func silentThroughTheOwnRefreshTokenReadsAsIdentityCore(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        let signedIn = try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        suite.clock.advance(by: 3 * 3600)
        #expect(try app.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .refreshToken)
        let c = Self.client
        let tid = signedIn.tenantID
        let home = CacheKey.account(homeAccountID: signedIn.account.homeAccountID, environment: "login.windows.net")
        #expect(Self.steps(recorder.take()) == [
            SDK.account(username: "alice@contoso.com"), SDK.accountMetadata(c), SDK.accountMetadata(c), SDK.accessTokens(c, tid),
            SDK.write(.delete, account: home, service: "accesstoken-\(c)-\(tid)-user.read", type: 2001),
            SDK.useSingleFRT, SDK.useSingleFRT, SDK.refreshToken(c),
        ] + SDK.savedResponse(client: c, home: home, realm: tid, metadataWritten: false, newForClient: false, replacedAccessToken: false, newAccessToken: true))
    }

    /// forceRefresh: no access-token lookup (executeRequestImpl skips it), then as above; the
    /// still valid access token is deleted by the save's intersect query.
    @Test(arguments: Backend.memoryAndKeyring)
    func forcedRefreshReadsAsIdentityCore(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        let signedIn = try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        #expect(try app.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"], forceRefresh: true).source == .refreshToken)
        let c = Self.client
        let tid = signedIn.tenantID
        let home = CacheKey.account(homeAccountID: signedIn.account.homeAccountID, environment: "login.windows.net")
        #expect(Self.steps(recorder.take()) == [
            SDK.account(username: "alice@contoso.com"), SDK.accountMetadata(c), SDK.accountMetadata(c), SDK.useSingleFRT, SDK.useSingleFRT, SDK.refreshToken(c),
        ] + SDK.savedResponse(client: c, home: home, realm: tid, metadataWritten: false, newForClient: false, replacedAccessToken: true, newAccessToken: true))
    }

    /// A sibling of the family with no token of its own: no access token; the app's refresh
    /// token is looked up (getRefreshTokenWithAccount: checkFRTEnabled, the query, the wipe
    /// record on a miss (getTokenWithEnvironment), the home account ID by username
    /// (getRefreshableTokenByDisplayableId, homeAccountIdForLegacyId) and the query again, the
    /// legacy accessor under the tenant and `common` (getTokenByLegacyUserId, the wipe record
    /// on a miss)), then the family's (app metadata, none: family "1"), found and redeemed;
    /// the response saved with the client's account metadata created.
    @Test(arguments: Backend.memoryAndKeyring)
    func silentThroughTheFamilyRefreshTokenReadsAsIdentityCore(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let signedIn = try suite.mail.signIn(username: "alice@contoso.com")
        let recorder = Recorder()
        let calendar = try traced(suite, recorder, bundleID: "com.contoso.calendar2", client: Suite.calendarClient)
        _ = recorder.take()
        #expect(try calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .familyRefreshToken)
        let c = Suite.calendarClient
        let tid = signedIn.tenantID
        let home = CacheKey.account(homeAccountID: signedIn.account.homeAccountID, environment: "login.windows.net")
        let user = "alice@contoso.com"
        #expect(Self.steps(recorder.take()) == [
            SDK.account(username: user), SDK.accountMetadata(c), SDK.accountMetadata(c), SDK.accessTokens(c, tid), SDK.useSingleFRT,
            SDK.useSingleFRT, SDK.refreshToken(c), SDK.wipeInfo, SDK.account(username: user), SDK.refreshToken(c), SDK.wipeInfo,
            SDK.legacyRefreshToken(user, realm: tid, client: c), SDK.legacyRefreshToken(user, realm: "common", client: c), SDK.wipeInfo,
            SDK.appMetadata(c), SDK.useSingleFRT, SDK.refreshToken("1"),
        ] + SDK.savedResponse(client: c, home: home, realm: tid, metadataWritten: true, newForClient: true, replacedAccessToken: false, newAccessToken: true))
    }

    /// allAccounts: MSALAccountsProvider allAccounts (appMetadataItem, the family), then
    /// MSIDDefaultTokenCacheAccessor accountsWithAuthority with no authority: the accounts
    /// (`{type 1003}`), homeAccountIdsFromRTsWithAuthority (checkFRTEnabled, every refresh
    /// token: `{type 2002}`), idTokensWithAuthority (`{type 2003}`),
    /// filterAndFillIdTokenClaimsForAccounts (the client's sign-in state, read once per account
    /// item), then the legacy accessor's accountsWithAuthority.
    @Test(arguments: Backend.memoryAndKeyring)
    func allAccountsReadsAsIdentityCore(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        try app.signIn(username: "alice@contoso.com")
        try app.signIn(username: "bob@contoso.com")
        _ = recorder.take()
        #expect(try app.accounts().map(\.username).sorted() == ["alice@contoso.com", "bob@contoso.com"])
        let c = Self.client
        #expect(Self.steps(recorder.take()) == [
            SDK.appMetadata(c), SDK.read(type: 1003), SDK.useSingleFRT, SDK.read(type: 2002), SDK.read(type: 2003),
            SDK.accountMetadata(c), SDK.accountMetadata(c), SDK.legacyItems,
        ])
    }

    /// allAccounts with nothing to list: the wipe record is read after the default accessor
    /// found no account (accountsWithAuthority), before the legacy accessor is asked.
    @Test(arguments: Backend.memoryAndKeyring)
    func anEmptyAccountListReadsTheWipeRecord(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        _ = recorder.take()
        #expect(try app.accounts().isEmpty)
        let c = Self.client
        #expect(Self.steps(recorder.take()) == [
            SDK.appMetadata(c), SDK.read(type: 1003), SDK.useSingleFRT, SDK.read(type: 2002), SDK.read(type: 2003),
            SDK.wipeInfo, SDK.legacyItems,
        ])
    }
}
