import Foundation
import SharedKeychain
import Testing

/// The documentation's "A shared group in ten lines", line for line, so it never rots.
@Suite("Documentation examples")
struct DocumentationExampleTests {
    @Test func aSharedGroupInTenLines() throws {
        let team = try TeamIdentifier("ABCDE12345")
        let cache = "$(AppIdentifierPrefix)com.microsoft.adalcache"
        let store = InMemoryStore()
        let mail = Keychain(app: try AppIdentity(bundleID: "com.contoso.mail", teamID: team, entitlements: Entitlements(keychainAccessGroups: [cache]), source: "mail"), store: store)
        let calendar = Keychain(app: try AppIdentity(bundleID: "com.contoso.calendar", teamID: team, entitlements: Entitlements(keychainAccessGroups: [cache]), source: "calendar"), store: store)
        let notes = Keychain(app: try AppIdentity(bundleID: "com.contoso.notes", teamID: team), store: store)
        try mail.add(NewItem(account: "alice", service: "refreshtoken-client--", data: Data("rt-123".utf8)))
        let shared = try calendar.first(KeychainQuery(account: "alice"))            // Mail's item, through the group
        do { try notes.delete(KeychainQuery(group: "ABCDE12345.com.microsoft.adalcache")) } catch { print(error.status) }   // errSecMissingEntitlement (-34018)
        try calendar.delete(KeychainQuery())                                        // the hazard: every item of every group Calendar reaches

        // What the article says happened.
        #expect(shared.data == Data("rt-123".utf8) && shared.group == "ABCDE12345.com.microsoft.adalcache")
        #expect(throws: KeychainError.self) { try notes.delete(KeychainQuery(group: "ABCDE12345.com.microsoft.adalcache")) }
        #expect(try mail.copyAll(KeychainQuery()).isEmpty)
    }
}
