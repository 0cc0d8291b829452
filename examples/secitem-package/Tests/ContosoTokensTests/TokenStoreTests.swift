import ContosoTokens
import Foundation
import Security
import Testing

/// Runs as whatever app the environment names, on whatever keychain it names, as an iOS test
/// bundle runs inside its host app. The app is entitled to `ABCDE12345.com.contoso.shared`.
@Suite(.serialized)
struct TokenStoreTests {
    let store = TokenStore(service: "com.contoso.tokens.\(UUID().uuidString.prefix(8))")

    @Test func savesReadsOverwritesAndDeletesATokenInTheFirstGroup() {
        #expect(store.token(account: "alice") == nil)
        #expect(store.save("t1", account: "alice") == errSecSuccess)
        #expect(store.save("t2", account: "alice") == errSecSuccess)
        #expect(store.token(account: "alice") == "t2")
        #expect(store.group(account: "alice") == "ABCDE12345.com.contoso.shared")
        #expect(store.delete(account: "alice") == errSecSuccess)
        #expect(store.delete(account: "alice") == errSecItemNotFound)
        #expect(TokenStore.describe(errSecItemNotFound) == "The specified item could not be found in the keychain.")
    }

    @Test func listsAccountsOldestFirstAndSignsEveryoneOut() {
        for account in ["alice", "bob", "carol"] { #expect(store.save("token-\(account)", account: account) == errSecSuccess) }
        #expect(store.accounts() == ["alice", "bob", "carol"])
        #expect(store.deleteAll() == errSecSuccess)
        #expect(store.accounts().isEmpty)
    }

    @Test func aGroupTheAppIsNotEntitledToIsRefused() {
        let other = TokenStore(service: store.service, accessGroup: "ABCDE12345.com.contoso.private")
        #expect(other.save("t", account: "alice") == errSecMissingEntitlement)
        #expect(TokenStore.describe(errSecMissingEntitlement) == "A required entitlement isn't present.")
        #expect(store.token(account: "alice") == nil)
    }
}
