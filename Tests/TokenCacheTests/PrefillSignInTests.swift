import Foundation
import SharedKeychain
import Testing
@testable import TokenCache

/// `prefillSignIns` (a load test's prefill) leaves the group as sign-ins one by one leave it:
/// the same items of every kind, with the same JSON, the client's account metadata included.
@Suite("Prefill sign-ins")
struct PrefillSignInTests {
    @Test(arguments: Backend.memoryAndKeyring)
    func prefillLeavesWhatSignInsLeave(_ backend: Backend) throws {
        let users = ["alice@contoso.com", "bob@contoso.com", "carol@fabrikam.com"]
        let signedIn = try Suite(backend)
        for user in users { try signedIn.mail.signIn(username: user) }
        let prefilled = try Suite(backend)
        var reported: [Int] = []
        #expect(try prefilled.mail.prefillSignIns(usernames: users, progress: { reported.append($0) }) == 3)
        #expect(reported == [1, 2, 3])
        // Item by item, keys and JSON alike (the groups differ only by team).
        let expected = try Self.contents(of: signedIn)
        let actual = try Self.contents(of: prefilled)
        #expect(actual.count == expected.count)
        #expect(actual == expected)
        let metadata = prefilled.json(try prefilled.item(account: "authority_map", service: Suite.mailClient))
        #expect(metadata["account_metadata_map"]?.objectValue?.count == 3)
        #expect(try prefilled.mail.accounts().map(\.username).sorted() == users)
    }

    /// A prefill on top of accounts already signed in keeps their entries.
    @Test(arguments: Backend.memoryAndKeyring)
    func prefillKeepsEntriesAlreadyThere(_ backend: Backend) throws {
        let suite = try Suite(backend)
        try suite.mail.signIn(username: "alice@contoso.com")
        try suite.mail.prefillSignIns(usernames: ["bob@contoso.com"])
        let metadata = suite.json(try suite.item(account: "authority_map", service: Suite.mailClient))
        #expect(metadata["account_metadata_map"]?.objectValue?.count == 2)
        #expect(try suite.mail.accounts().map(\.username) == ["alice@contoso.com", "bob@contoso.com"])
    }

    @Test func emptyUsernameIsRefusedBeforeAnythingIsWritten() throws {
        let suite = try Suite(.memory)
        #expect(throws: TokenCacheError.self) { try suite.mail.prefillSignIns(usernames: ["alice@contoso.com", " "]) }
        #expect(try suite.cacheItems().isEmpty)
    }

    /// Each cache item as (type, account, service, generic, JSON without the token secret,
    /// which the emulated issuer draws afresh for every response), sorted.
    private static func contents(of suite: Suite) throws -> [String] {
        try suite.cacheItems().map { item in
            var fields = suite.json(item)
            #expect(fields["secret"].map { _ in item.type != 5001 && item.type != 3001 && item.type != 1003 } ?? true)
            fields["secret"] = nil
            return "\(item.type ?? 0)|\(item.account)|\(item.service)|\(item.generic.map { String(decoding: $0, as: UTF8.self) } ?? "")|"
                + String(decoding: CacheJSON.data(fields), as: UTF8.self)
        }.sorted()
    }
}
