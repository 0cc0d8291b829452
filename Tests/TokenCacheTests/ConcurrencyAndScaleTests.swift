import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// Concurrent apps, entitlements, and the cost of listing.
@Suite("Concurrency, entitlement and scale")
struct ConcurrencyAndScaleTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func concurrentSignInsFromTwoAppsAreAllListed(_ backend: Backend) async throws {
        let suite = try Suite(backend)
        let apps = [suite.mail, suite.calendar]
        let count = 16
        let results = try await withThrowingTaskGroup(of: AuthenticationResult.self) { group in
            for index in 0..<count {
                let app = apps[index % 2]
                group.addTask { try app.signIn(username: "user\(index)@contoso.com") }
            }
            return try await group.reduce(into: [AuthenticationResult]()) { $0.append($1) }
        }
        #expect(Set(results.map(\.account.homeAccountID)).count == count)
        // Two first sign-ins of one client racing to add its app metadata: the loser's add is
        // errSecDuplicateItem, which ends its save before the account (MSAL's saveData has no
        // retry); that user is not listed, as on a device. Every other user is.
        let saved = Set(results.filter { !$0.cacheSaveFailures.contains { $0.step == .tokens } }.map(\.account.homeAccountID))
        #expect(results.flatMap(\.cacheSaveFailures).allSatisfy { $0.status == .duplicateItem })
        #expect(Set(try suite.mail.accounts().map(\.homeAccountID)) == saved)
        #expect(Set(try suite.calendar.accounts().map(\.homeAccountID)) == saved)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func concurrentSignInsOfOneUserFromTwoAppsShareOneFamilyToken(_ backend: Backend) async throws {
        let suite = try Suite(backend)
        let apps = [suite.mail, suite.calendar]
        let results = try await withThrowingTaskGroup(of: AuthenticationResult.self) { group in
            for index in 0..<8 {
                let app = apps[index % 2]
                group.addTask { try app.signIn(username: "alice@contoso.com") }
            }
            return try await group.reduce(into: [AuthenticationResult]()) { $0.append($1) }
        }
        // A racing add ends that response's save (MSAL's saveData): only the partial saves'
        // items can be missing, never a second copy.
        #expect(results.flatMap(\.cacheSaveFailures).allSatisfy { $0.status == .duplicateItem })
        let refreshTokens = try suite.items().filter { $0.type == 2002 }.map(\.service)
        #expect(Set(refreshTokens).count == refreshTokens.count)
        #expect(Set(refreshTokens).isSubset(of: ["refreshtoken-1--", "refreshtoken-\(Suite.mailClient)--", "refreshtoken-\(Suite.calendarClient)--"]))
        if results.contains(where: { $0.cacheSaveFailures.allSatisfy { $0.step != .tokens } }) {
            #expect(refreshTokens.contains("refreshtoken-1--"))
            #expect(try suite.mail.accounts().count == 1)
        }
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func appNotEntitledToTheSharingGroupGetsMissingEntitlement(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        let notes = try suite.app("com.contoso.notes", client: "0a1b2c3d-5555-4555-8555-555555555555", family: "1", entitled: false)
        #expect(notes.accessGroup == suite.group)
        // A sign-in returns its token (SaveFailureTests); every operation that reads first fails.
        let operations: [(String, () throws -> Void)] = [
            ("acquireTokenSilent", { _ = try notes.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"]) }),
            ("accounts", { _ = try notes.accounts() }),
            ("remove", { _ = try notes.remove(account: "alice@contoso.com") }),
            ("wipeCacheForAllAccounts", { _ = try notes.wipeCacheForAllAccounts() }),
            ("exportCache", { _ = try notes.exportCache() }),
        ]
        for (name, operation) in operations {
            let error = #expect(throws: TokenCacheError.self, "\(name)") { try operation() }
            guard case .keychain(.missingEntitlement(let group, let app, _))? = error else {
                Issue.record("\(name): expected errSecMissingEntitlement, got \(String(describing: error))")
                continue
            }
            #expect(group == suite.group)
            #expect(app == "com.contoso.notes")
            #expect(error?.status == .missingEntitlement)
            #expect(error?.status.rawValue == -34018)
        }
        // Nothing of mail's was touched.
        #expect(try suite.mail.accounts().map(\.username) == ["alice@contoso.com"])
    }

    /// MSAL writes every item of every token response (app metadata and the account included),
    /// update-then-add; only the account metadata is left alone when the response does not
    /// change it (MSIDDefaultTokenCacheAccessor saveTokensWithConfiguration and
    /// saveSSOStateWithConfiguration; MSIDMetadataCache saveAccountMetadataCacheItem).
    @Test(arguments: Backend.memoryAndKeyring)
    func signInsWriteWhatMSALWrites(_ backend: Backend) throws {
        let counting = CountingStore(try backend.makeStore())
        let suite = try Suite(backend, store: counting)
        func writes(_ body: () throws -> Void) throws -> (added: Int, updated: Int) {
            counting.reset()
            try body()
            return (counting.calls["add"] ?? 0, counting.calls["update"] ?? 0)
        }
        // New: account metadata, access, ID, family refresh and refresh tokens, app metadata and
        // account; each an update that finds nothing, then an add; and the account metadata's
        // authority map of the `/common` request (updateAuthorityURL), one update more.
        #expect(try writes { try suite.mail.signIn(username: "alice@contoso.com") } == (7, 8))
        // Another user: the metadata item gains an entry (one update) and its authority map (one
        // more), the app metadata is rewritten (one update), and five items are new.
        let bob = try writes { try suite.mail.signIn(username: "bob@contoso.com") }
        #expect(bob == (5, 8), "\(bob)")
        // The same user again: the metadata is as it was and is skipped; the old access token,
        // whose scopes intersect, is deleted and the new one added; the five others rewritten.
        let again = try writes { try suite.mail.signIn(username: "alice@contoso.com") }
        #expect(again == (1, 6), "\(again)")
        let items = try suite.items()
        #expect(items.filter { $0.type == 1003 }.count == 2)
        #expect(items.filter { $0.type == 3001 }.count == 1)
        #expect(items.filter { $0.type == 2001 }.count == 2)
        #expect(try suite.calendar.accounts().map(\.username).sorted() == ["alice@contoso.com", "bob@contoso.com"])
    }

    /// The account list costs what MSAL's costs: a fixed set of queries, whatever the size of
    /// the group, plus one read of the client's account metadata per account record
    /// (MSIDDefaultTokenCacheAccessor filterAndFillIdTokenClaimsForAccounts calls
    /// MSIDAccountMetadataCacheAccessor signInStateForHomeAccountId, skipCache YES, for each).
    @Test(arguments: Backend.memoryAndKeyring)
    func listingCostsTheSDKsStoreCallsOneMetadataReadPerAccount(_ backend: Backend) throws {
        func calls(accounts count: Int) throws -> (calls: [String: Int], listed: Int, items: Int) {
            let counting = CountingStore(try backend.makeStore())
            let suite = try Suite(backend, store: counting)
            try suite.mail.importCache(Self.cache(accounts: count))
            let items = try suite.cacheItems().count
            counting.reset()
            let listed = try suite.calendar.accounts().count
            return (counting.calls, listed, items)
        }
        let small = try calls(accounts: 5)
        let large = try calls(accounts: 250)
        // Per account: the account, and a family refresh token, which the iOS SDKs keep twice
        // (the client's and the family's item).
        #expect(small.items == 15)
        #expect(large.items == 750)
        #expect(small.listed == 5)
        #expect(large.listed == 250)
        // MSALAccountsProvider allAccounts and MSIDDefaultTokenCacheAccessor
        // accountsWithAuthority: the app metadata, `{type 1003}`, useSingleFRT, `{type 2002}`,
        // `{type 2003}`, the account metadata once per account, and ADAL's items
        // (`{generic MSOpenTech.ADAL.1}`, the legacy accessor's accountsWithAuthority). No read
        // of the emulator's earlier layout (type 4001): the SDK never makes it.
        #expect(small.calls == ["items": 6 + 5])
        #expect(large.calls == ["items": 6 + 250])
    }

    /// A serialized cache of `count` accounts, each with a family refresh token of mail.
    static func cache(accounts count: Int) -> Data {
        var accounts: [String: JSONValue] = [:]
        var refreshTokens: [String: JSONValue] = [:]
        let environment = "login.microsoftonline.com"
        let tid = EmulatedIssuer.organizationsTenantID
        for index in 0..<count {
            let oid = EmulatedIssuer.objectID(username: "user\(index)@contoso.com", tenantID: tid)
            let home = "\(oid).\(tid)"
            accounts["\(home)-\(environment)-\(tid)"] = .object([
                "home_account_id": .string(home), "environment": .string(environment), "realm": .string(tid),
                "local_account_id": .string(oid), "username": .string("user\(index)@contoso.com"), "authority_type": .string("MSSTS"),
            ])
            refreshTokens["\(home)-\(environment)-refreshtoken-1--"] = .object([
                "credential_type": .string("RefreshToken"), "secret": .string("rt-\(index)"), "home_account_id": .string(home),
                "environment": .string(environment), "client_id": .string(Suite.mailClient), "family_id": .string("1"),
            ])
        }
        return CacheJSON.data(["Account": .object(accounts), "RefreshToken": .object(refreshTokens)])
    }
}
