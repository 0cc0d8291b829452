import Foundation
import SharedKeychain
import Synchronization
import Testing
@testable import TokenCache

/// The keychain calls each operation makes, compared with the order IdentityCore makes them in,
/// written down from its source (file and method named in each test). Writes and deletes are
/// compared call for call here; the reads of silent acquisition and of the account list, query
/// for query, in KeychainTraceReadTests.swift.
@Suite("Keychain call traces against IdentityCore")
struct KeychainTraceTests {
    /// Collects the calls of one cache.
    final class Recorder: Sendable {
        private let calls = Mutex<[KeychainCall]>([])
        var trace: KeychainCallTrace { KeychainCallTrace { [self] call in calls.withLock { $0.append(call) } } }
        func take() -> [KeychainCall] {
            calls.withLock { recorded in
                let taken = recorded
                recorded = []
                return taken
            }
        }
    }

    static let client = Suite.mailClient

    /// A family app on `suite`'s store whose calls `recorder` sees.
    func traced(_ suite: Suite, _ recorder: Recorder, bundleID: String = "com.contoso.traced", client: String = Self.client) throws -> TokenCache {
        // Made here rather than through the suite, so that the recorder sees the cache's first call.
        let identity = try AppIdentity(
            bundleID: bundleID, teamID: suite.team,
            entitlements: Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"]), source: bundleID)
        var configuration = TokenCacheConfiguration(clientID: client, familyID: "1")
        configuration.trace = recorder.trace
        return try TokenCache(
            keychain: Keychain(app: identity, store: suite.store, now: suite.clock.function), configuration: configuration,
            now: suite.clock.function)
    }

    /// The writes and deletes, as `function service` (the account is the user's, or
    /// `authority_map` / the environment for metadata).
    func writes(_ calls: [KeychainCall]) -> [String] {
        calls.filter { $0.function != .copyMatching }.map { "\($0.function.rawValue) \($0.service ?? "(no service)")" }
    }

    /// A first sign-in by a new app of the suite. Its cache's first call is MSAL's team-ID
    /// probe (MSIDKeychainUtil.m appDefaultAccessGroup, which MSIDKeychainTokenCache
    /// initWithGroup reaches through teamId): a read of `SDK.ObjC.teamIDHint` in every group of
    /// the app, which finds the item the suite's first app added. Then
    /// MSIDTokenResponseValidator validateAndSaveTokenResponse (account metadata first), then
    /// MSIDDefaultTokenCacheAccessor saveTokensWithConfiguration: AT, IDT,
    /// saveSSOStateWithConfiguration: family RT, the client's RT, app metadata, account. Each
    /// MSIDKeychainTokenCache saveData: SecItemUpdate, then SecItemAdd on errSecItemNotFound,
    /// every add afterFirstUnlockThisDeviceOnly.
    @Test(arguments: Backend.memoryAndKeyring)
    func signInWritesInIdentityCoresOrder(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        let result = try app.signIn(username: "alice@contoso.com")
        let calls = recorder.take()
        #expect(calls.first?.shape == "SecItemCopyMatching account=SDK.ObjC.teamIDHint service=")
        #expect(calls.first?.status == .success)
        #expect(calls.dropFirst().allSatisfy { $0.account != TeamIDProbe.account })
        let tid = result.tenantID
        let c = Self.client
        let pairs = ["accesstoken-\(c)-\(tid)-user.read", "idtoken-\(c)-\(tid)-", "refreshtoken-1--", "refreshtoken-\(c)--", "appmetadata-\(c)", tid]
        // The account metadata twice (updateAccountMetadataForHomeAccountId): `signed_in`, then
        // the authority map of the `/common` request (updateAuthorityURL), an update of the item.
        #expect(writes(calls) == ["SecItemUpdate \(c)", "SecItemAdd \(c)", "SecItemUpdate \(c)"] + pairs.flatMap { ["SecItemUpdate \($0)", "SecItemAdd \($0)"] })
        #expect(calls.filter { $0.function == .add }.allSatisfy { $0.accessibility == .afterFirstUnlockThisDeviceOnly && $0.status == .success })
        let updates = calls.filter { $0.function == .update }
        #expect(updates.dropFirst().first?.status == .success)
        #expect(updates.enumerated().allSatisfy { $0.offset == 1 || $0.element.status == .itemNotFound })
        // Data never appears in a trace.
        #expect(!calls.map(\.description).joined().contains(result.accessToken.value))
    }

    /// A refresh: the account metadata is unchanged and not written (MSIDMetadataCache
    /// saveAccountMetadataCacheItem skips an equal item); the old access token, whose scopes
    /// intersect, is deleted first (saveAccessTokenWithConfiguration); every other item is
    /// rewritten, app metadata and account included.
    @Test(arguments: Backend.memoryAndKeyring)
    func aRefreshRewritesEveryItemButTheUnchangedMetadata(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        let result = try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        suite.clock.advance(by: 3600)
        #expect(try app.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]).source == .refreshToken)
        let tid = result.tenantID
        let c = Self.client
        #expect(writes(recorder.take()) == [
            "SecItemDelete accesstoken-\(c)-\(tid)-user.read",
            "SecItemUpdate accesstoken-\(c)-\(tid)-user.read", "SecItemAdd accesstoken-\(c)-\(tid)-user.read",
            "SecItemUpdate idtoken-\(c)-\(tid)-", "SecItemUpdate refreshtoken-1--", "SecItemUpdate refreshtoken-\(c)--",
            "SecItemUpdate appmetadata-\(c)", "SecItemUpdate \(tid)",
        ])
    }

    /// removeAccount: each credential of this client deleted by its key, the wipe record written
    /// after each refresh-token delete (MSIDAccountCredentialCache removeCredential), then this
    /// client's account metadata set signed_out (MSALPublicClientApplication removeAccountImpl).
    @Test(arguments: Backend.memoryAndKeyring)
    func removeAccountDeletesThenRecordsEachRefreshTokenThenSignsOut(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        try app.remove(account: "alice@contoso.com")
        let steps = writes(recorder.take())
        let deletes = steps.filter { $0.hasPrefix("SecItemDelete") }
        #expect(deletes.count == 4)
        // After each refresh-token delete, the wipe record's update (and add, the first time).
        for (index, step) in steps.enumerated() where step.hasPrefix("SecItemDelete refreshtoken") {
            #expect(steps[index + 1] == "SecItemUpdate (no service)")
        }
        #expect(steps.filter { $0 == "SecItemUpdate (no service)" }.count == 2)
        #expect(steps.suffix(1) == ["SecItemUpdate \(Self.client)"])
    }

    /// wipeCacheForAllAccounts: clearCacheForAllAccountsWithContext, two identical
    /// SecItemDelete({class, group}) (the default accessor's and the legacy one's), nothing after:
    /// the team-ID probe, in the group because it is the apps' first, goes too, and the app,
    /// which found its team ID once for the process (MSIDKeychainUtil.m appDefaultAccessGroup's
    /// dispatch_once), does not add it again.
    @Test(arguments: Backend.memoryAndKeyring)
    func aFullWipeIsTwoGroupDeletesAndNothingAfter(_ backend: Backend) throws {
        let suite = try Suite(backend)
        let recorder = Recorder()
        let app = try traced(suite, recorder)
        try app.signIn(username: "alice@contoso.com")
        _ = recorder.take()
        #expect(try suite.items().filter(TokenCache.isTeamIDProbe).count == 1)
        try app.wipeCacheForAllAccounts()
        let calls = recorder.take().filter { $0.function != .copyMatching }
        #expect(calls.map(\.function) == [.delete, .delete])
        #expect(calls.allSatisfy { $0.account == nil && $0.service == nil && $0.type == nil })
        #expect(calls.map(\.status) == [.success, .itemNotFound])
        #expect(try suite.items().isEmpty)
        // A later cache of the same app in this process does not probe again.
        _ = try traced(suite, recorder)
        #expect(recorder.take().isEmpty)
        #expect(try suite.items().isEmpty)
    }
}
