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
        let homes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                let app = apps[index % 2]
                group.addTask { try app.signIn(username: "user\(index)@contoso.com").account.homeAccountID }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(homes.count == count)
        #expect(Set(try suite.mail.accounts().map(\.homeAccountID)) == homes)
        #expect(Set(try suite.calendar.accounts().map(\.homeAccountID)) == homes)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func concurrentSignInsOfOneUserFromTwoAppsShareOneFamilyToken(_ backend: Backend) async throws {
        let suite = try Suite(backend)
        let apps = [suite.mail, suite.calendar]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                let app = apps[index % 2]
                group.addTask { _ = try app.signIn(username: "alice@contoso.com") }
            }
            try await group.waitForAll()
        }
        let refreshTokens = try suite.items().filter { $0.type == 2002 }
        #expect(refreshTokens.map(\.service).sorted() == ["refreshtoken-1--", "refreshtoken-\(Suite.mailClient)--", "refreshtoken-\(Suite.calendarClient)--"].sorted())
        #expect(try suite.mail.accounts().count == 1)
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func appNotEntitledToTheSharingGroupGetsMissingEntitlement(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        let notes = try suite.app("com.contoso.notes", client: "0a1b2c3d-5555-4555-8555-555555555555", family: "1", entitled: false)
        #expect(notes.accessGroup == suite.group)
        let operations: [(String, () throws -> Void)] = [
            ("signIn", { _ = try notes.signIn(username: "alice@contoso.com") }),
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

    /// Writes that would store what is there already are skipped, as MSAL skips them: a second
    /// user's sign-in leaves the app metadata alone, and the same user's second sign-in the
    /// account record, the metadata and the sign-in state too. Nothing MSAL keeps is dropped.
    @Test(arguments: Backend.memoryAndKeyring)
    func signInsSkipWritesThatChangeNothing(_ backend: Backend) throws {
        let counting = CountingStore(try backend.makeStore())
        let suite = try Suite(backend, store: counting)
        func writes(_ body: () throws -> Void) throws -> (added: Int, updated: Int) {
            counting.reset()
            try body()
            return (counting.calls["add"] ?? 0, counting.calls["update"] ?? 0)
        }
        // New: metadata, account, ID token, refresh token, family refresh token, access token,
        // sign-in state; each an update that finds nothing, then an add.
        #expect(try writes { try suite.mail.signIn(username: "alice@contoso.com") } == (7, 7))
        // Another user: the app's metadata is as it was.
        #expect(try writes { try suite.mail.signIn(username: "bob@contoso.com") } == (6, 6))
        // The same user again: only the new tokens. The test clock stands still, so the ID token
        // comes out the same and is left alone too: refresh, family refresh and access tokens.
        let again = try writes { try suite.mail.signIn(username: "alice@contoso.com") }
        #expect(again == (0, 3), "\(again)")
        let items = try suite.items()
        #expect(items.filter { $0.type == 1003 }.count == 2)
        #expect(items.filter { $0.type == 3001 }.count == 1)
        #expect(try suite.calendar.accounts().map(\.username).sorted() == ["alice@contoso.com", "bob@contoso.com"])
    }

    @Test(arguments: Backend.memoryAndKeyring)
    func listingCostsTheSameStoreCallsForTenOrFiveHundredItems(_ backend: Backend) throws {
        func calls(accounts count: Int) throws -> (calls: [String: Int], listed: Int, items: Int) {
            let counting = CountingStore(try backend.makeStore())
            let suite = try Suite(backend, store: counting)
            try suite.mail.importCache(Self.cache(accounts: count))
            let items = try suite.items().count
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
        #expect(small.calls == large.calls)
        // One partial query per item type that plays a part: four account types, refresh
        // tokens, app metadata, sign-in states.
        #expect(small.calls == ["items": 7])
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
