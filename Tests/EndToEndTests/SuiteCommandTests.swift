import Foundation
import Testing

@Suite("End to end: suite manifests")
struct SuiteCommandTests {
    @Test func initWritesASuiteThatChecksCleanAndDrivesAppCommands() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let directory = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", directory]).status == 0)
        let again = try cli.run(["suite", "init", "--suite", directory])
        #expect(again.status == 10, "init must refuse to overwrite")

        let check = try cli.run(["suite", "check", "--suite", directory, "--json"])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(try check.jsonObject()["passed"] as? Bool == true)

        let mail = ["--suite", directory, "--app", "com.contoso.mail"]
        let calendar = ["--suite", directory, "--app", "com.contoso.calendar"]
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail).status == 0)
        let accounts = try #require(try cli.run(["token", "accounts", "--json"] + calendar).json() as? [[String: Any]])
        #expect(accounts.map { $0["username"] as? String } == ["alice@contoso.com"])
        let unknown = try cli.run(["item", "list", "--suite", directory, "--app", "com.contoso.nope"])
        #expect(unknown.status == 10)
        #expect(unknown.standardError.contains("com.contoso.mail"))
    }

    /// Issue 21's recommended layout (per-app groups, single sign-on through the broker) passes
    /// `suite check` as a user runs it, with no finding at all.
    @Test func thePerAppExampleSuiteChecksClean() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let directory = BlastRadiusCommandTests.examples.appendingPathComponent("suite-per-app").path
        let check = try cli.run(["suite", "check", "--suite", directory])
        #expect(check.status == 0, "\(check.standardError)")
        #expect(check.output.hasSuffix("0 errors, 0 warnings\n"), "\(check.output)")
        #expect(!check.output.contains("keychain-group-shared") && !check.output.contains("shared-cache-wipe"))
    }

    @Test func checkFailsOnABrokenSuite() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let directory = cli.fixtures.appendingPathComponent("suite")
        #expect(try cli.run(["suite", "init", "--suite", directory.path]).status == 0)
        let manifest = directory.appendingPathComponent("suite.yaml")
        var text = try String(contentsOf: manifest, encoding: .utf8)
        // Calendar claims mail's redirect URI: the broker would deny its tokens.
        text = text.replacingOccurrences(of: "msauth.com.contoso.calendar://auth", with: "msauth.com.contoso.mail://auth")
        try text.write(to: manifest, atomically: true, encoding: .utf8)
        let check = try cli.run(["suite", "check", "--suite", directory.path, "--json"])
        #expect(check.status == 10)
        let rules = try #require(try check.jsonObject()["findings"] as? [[String: Any]]).compactMap { $0["rule"] as? String }
        #expect(rules.contains("redirect-uri-other-app"))
        #expect(rules.contains("redirect-uri-distinct"))
    }
}
