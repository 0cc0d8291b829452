import Foundation
import Testing

/// Guests from the command line: alice signs in to her home tenant and as a guest in a second
/// tenant, and `token accounts` lists her once with two tenant profiles, as MSAL's `allAccounts`
/// (MSALAccountsProviderTests testAllAccounts_whenMultipleDefaultAccountsInCache_shouldReturnThem).
@Suite("End to end: guest accounts")
struct GuestAccountCommandTests {
    let clientID = "4b0db8c2-9f26-4417-8bde-3f0e3656f8e0"

    @Test func aliceIsListedOnceWithHerHomeAndGuestTenantProfiles() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--entitlements", shared, "--client-id", clientID, "--family-id", "1"]

        let home = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--json"] + mail)
        #expect(home.status == 0, "\(home.standardError)")
        let guest = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--tenant", "fabrikam.com", "--json"] + mail)
        #expect(guest.status == 0, "\(guest.standardError)")
        let homeAccount = try #require(try home.jsonObject()["account"] as? [String: Any])
        let guestAccount = try #require(try guest.jsonObject()["account"] as? [String: Any])
        let homeAccountID = try #require(homeAccount["homeAccountID"] as? String)
        #expect(guestAccount["homeAccountID"] as? String == homeAccountID)
        let homeTenant = try #require(try home.jsonObject()["tenantID"] as? String)
        let guestTenant = try #require(try guest.jsonObject()["tenantID"] as? String)
        #expect(homeTenant != guestTenant)

        let listed = try cli.run(["token", "accounts", "--json"] + mail)
        #expect(listed.status == 0, "\(listed.standardError)")
        let accounts = try listed.jsonArray()
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        // The existing keys stay; tenantProfiles is added.
        #expect(account["username"] as? String == "alice@contoso.com")
        #expect(account["homeAccountID"] as? String == homeAccountID)
        #expect(account["tenantID"] as? String == homeTenant)
        let profiles = try #require(account["tenantProfiles"] as? [[String: Any]])
        #expect(profiles.map { $0["tenantID"] as? String } == [homeTenant, guestTenant])
        #expect(profiles.map { $0["isHomeTenant"] as? Bool } == [true, false])
        #expect(profiles.last?["localAccountID"] as? String == guestAccount["localAccountID"] as? String)

        let text = try cli.run(["token", "accounts"] + mail)
        let lines = text.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == 4, "header, a row per tenant profile, the count: \(text.output)")
        #expect(lines.dropFirst().first?.suffix(3) == [homeTenant, homeAccountID.components(separatedBy: ".")[0], "home"])
        #expect(lines.dropFirst(2).first == [guestTenant, guestAccount["localAccountID"] as? String ?? "", "guest"])
        #expect(text.output.hasSuffix("1 account\n"))

        // Silent acquisition in the guest tenant answers with that realm's token.
        let silent = try cli.run(["token", "acquire", "--account", "alice@contoso.com", "--tenant", "fabrikam.com", "--silent", "--json"] + mail)
        #expect(silent.status == 0, "\(silent.standardError)")
        #expect(try silent.jsonObject()["tenantID"] as? String == guestTenant)
        #expect(try silent.jsonObject()["source"] as? String == "cache")
    }
}
