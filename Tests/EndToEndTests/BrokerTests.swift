import Foundation
import Testing

/// The broker as a process of its own: sign-in through it, single sign-on without a prompt for
/// a second app, its keychain group out of every suite app's reach, and spoofing refused.
@Suite("End to end: the broker")
struct BrokerTests {
    @Test func appsSignInThroughTheBrokerWhichRefusesSpoofedRedirectURIs() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "install", "--suite", suite]).status == 0)
        #expect(try cli.run(["device", "install-broker"]).status == 0)

        // Mail: interactive, so the request goes to the broker, which signs alice in.
        let mail = try cli.run(["token", "acquire", "--interactive", "--app", "com.contoso.mail", "--account", "alice@contoso.com", "--json"])
        #expect(mail.status == 0, "\(mail.standardError)")
        let first = try mail.jsonObject()
        #expect(first["source"] as? String == "broker")
        #expect(first["brokerPrompted"] as? Bool == true)

        // The broker keeps its own tokens in a group no suite app reaches.
        let reach = try cli.run(["item", "list", "--app", "com.contoso.mail", "--group", "UBF8T346G9.com.microsoft.workplacejoin"])
        #expect(reach.status == 13)
        #expect(reach.standardError.contains("errSecMissingEntitlement (-34018)"))

        // Calendar, after the shared cache lost alice, gets her through the broker without a prompt.
        #expect(try cli.run(["token", "remove", "--app", "com.contoso.mail", "--account", "alice@contoso.com"]).status == 0)
        let calendar = try cli.run(["token", "acquire", "--app", "com.contoso.calendar", "--account", "alice@contoso.com", "--json"])
        #expect(calendar.status == 0, "\(calendar.standardError)")
        #expect(try calendar.jsonObject()["source"] as? String == "broker")
        #expect(try calendar.jsonObject()["brokerPrompted"] as? Bool == false)
        #expect(try cli.run(["token", "acquire", "--app", "com.contoso.mail", "--account", "alice@contoso.com", "--silent", "--json"]).jsonObject()["source"] as? String == "cache")

        // Spoofing: Calendar presents Mail's redirect URI; the broker knows the caller from the device.
        let spoof = try cli.run([
            "token", "acquire", "--interactive", "--app", "com.contoso.calendar", "--account", "mallory@contoso.com",
            "--redirect-uri", "msauth.com.contoso.mail://auth",
        ])
        #expect(spoof.status == 19)
        #expect(spoof.standardError.contains("errSecAuthFailed (-25293)"))
        #expect(spoof.standardError.contains("comes from com.contoso.calendar"))
        #expect(spoof.standardError.contains("belongs to com.contoso.mail"))

        // Notes is not set up for the broker: auto signs in embedded, broker says why not.
        let refused = try cli.run(["token", "acquire", "--interactive", "--app", "com.contoso.notes", "--account", "bob@contoso.com", "--webview", "broker"])
        #expect(refused.status == 10)
        #expect(refused.standardError.contains("needs msauthv2 in LSApplicationQueriesSchemes"))
        let embedded = try cli.run(["token", "acquire", "--interactive", "--app", "com.contoso.notes", "--account", "bob@contoso.com", "--json"])
        #expect(try embedded.jsonObject()["source"] as? String == "interactive")
    }
}
