import Foundation
import SharedKeychain
import Testing
import TokenCache

/// The token cache article's example, line for line, so it never rots.
@Suite("Documentation examples: the token cache")
struct DocumentationExampleTests {
    @Test func theTokenCacheAndTheAccountList() throws {
        let store = InMemoryStore()   // or Device(stateDirectory:).openStore(.private, logger:)
        let team = try TeamIdentifier("ABCDE12345")
        let groups = Entitlements(keychainAccessGroups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        func cache(_ bundleID: String) throws -> TokenCache {
            let app = try AppIdentity(bundleID: bundleID, teamID: team, entitlements: groups, source: bundleID)
            return try TokenCache(keychain: Keychain(app: app, store: store),
                                  configuration: TokenCacheConfiguration(clientID: "client-\(bundleID)", familyID: "1"))
        }
        let mail = try cache("com.contoso.mail")
        let calendar = try cache("com.contoso.calendar")

        let signedIn = try mail.signIn(username: "alice@contoso.com", tenant: "contoso.com")
        let accounts = try calendar.accounts()                        // alice, from Mail's items
        let token = try calendar.acquireTokenSilent(account: "alice@contoso.com", scopes: ["user.read"])
        // token.source == .familyRefreshToken: single sign-on, no prompt
        try calendar.wipeCacheForAllAccounts()                        // every app loses every account
        let who = try mail.wipeInfo()                                 // nil: a full wipe leaves no trace

        #expect(signedIn.source == .interactive)
        #expect(accounts.map(\.username) == ["alice@contoso.com"])
        #expect(token.source == .familyRefreshToken)
        #expect(try mail.accounts().isEmpty)
        #expect(who == nil)
    }
}
