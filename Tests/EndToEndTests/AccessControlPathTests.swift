import Foundation
import Testing

/// Issue 27, finding 3: every command that returns or writes an item's data asks the device's
/// authentication as `item get` does. Under `device authentication deny` (or `cancel`) no
/// command writes or prints the data of an item whose access control asks the user.
@Suite("End to end: every path to an item's data asks the device", .serialized)
struct AccessControlPathTests {
    static let suite = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples/suite").path
    let app = ["--app", "com.contoso.mail", "--team", "ABCDE12345"]
    let group = "ABCDE12345.com.contoso.mail"
    /// A secret no output may show while the device refuses.
    let secret = "guarded-\(UUID().uuidString)"

    /// An ad-hoc app's group with a plain item and one whose access control asks the user.
    func planted(_ cli: CLI) throws {
        #expect(try cli.run(["item", "add"] + app + ["--account", "plain", "--service", "s", "--data", "plain data"]).status == 0)
        let add = try cli.run(["item", "add"] + app + ["--account", "guarded", "--service", "s", "--access-control", "userPresence", "--data", secret])
        #expect(add.status == 0, "\(add.standardError)")
    }

    func shows(_ result: CLI.Result, _ text: String) -> Bool {
        result.output.contains(text) || result.standardError.contains(text)
    }

    @Test func snapshotFailsWithTheItemsStatusAndWritesNoFile() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        try planted(cli)
        let file = cli.fixtures.appendingPathComponent("snapshot.json")
        for (answer, status, name) in [("deny", Int32(19), "errSecAuthFailed (-25293)"), ("cancel", 22, "errSecUserCanceled (-128)")] {
            #expect(try cli.run(["device", "authentication", answer]).status == 0)
            for actor in [app, ["--admin"]] {
                let refused = try cli.run(["snapshot"] + actor + ["--group", group, "--output", file.path])
                #expect(refused.status == status, "\(refused.standardError)")
                #expect(refused.standardError.contains(name))
                #expect(refused.standardError.contains("guarded"))
                #expect(!FileManager.default.fileExists(atPath: file.path))
                #expect(!shows(refused, secret))
            }
        }
        #expect(try cli.run(["device", "authentication", "allow"]).status == 0)
        let taken = try cli.run(["snapshot", "--admin", "--group", group, "--output", file.path])
        #expect(taken.status == 0, "\(taken.standardError)")
        #expect(try String(decoding: Data(contentsOf: file), as: UTF8.self).contains(Data(secret.utf8).base64EncodedString()))
    }

    @Test func cacheExportAndTokenCommandsAskForAnAccessControlledToken() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = ["--suite", Self.suite, "--app", "com.contoso.mail"]
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com"] + mail)
        #expect(signIn.status == 0, "\(signIn.standardError)")
        // Mail's refresh token, put back with an access control that asks the user.
        let shared = "ABCDE12345.com.microsoft.adalcache"
        let listed = try #require(try cli.run(["item", "list", "--json", "--group", shared] + mail).json() as? [[String: Any]])
        let entry = try #require(listed.first { ($0["service"] as? String)?.hasPrefix("refreshtoken-") == true })
        let account = try #require(entry["account"] as? String)
        let service = try #require(entry["service"] as? String)
        let key = ["--group", shared, "--account", account, "--service", service]
        let token = try cli.run(["item", "get", "--json"] + key + mail).jsonObject()
        let data = try #require(token["data"] as? String)
        let credential = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let refreshToken = try #require(credential["secret"] as? String)
        #expect(try cli.run(["item", "delete"] + key + mail).status == 0)
        var add = ["item", "add"] + key + mail + ["--data", data, "--access-control", "userPresence"]
        if let type = token["type"] as? Int { add += ["--type", String(type)] }
        if let generic = token["generic"] as? String { add += ["--generic", generic] }
        #expect(try cli.run(add).status == 0)
        #expect(try cli.run(["cache", "export"] + mail).output.contains(refreshToken))

        #expect(try cli.run(["device", "authentication", "deny"]).status == 0)
        let export = try cli.run(["cache", "export"] + mail)
        #expect(export.status == 19, "\(export.standardError)")
        #expect(!shows(export, refreshToken))
        let file = cli.fixtures.appendingPathComponent("cache.json")
        let toFile = try cli.run(["cache", "export", "--output", file.path] + mail)
        #expect(toFile.status == 19)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        // The token commands read the group's data as MSAL does: the device is asked.
        let accounts = try cli.run(["token", "accounts"] + mail)
        #expect(accounts.status == 19)
        #expect(!shows(accounts, refreshToken))
    }

    @Test func scenarioStepsAskTheDeviceInProcessAndAsProcesses() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let mail = ["--suite", Self.suite, "--app", "com.contoso.mail"]
        let add = try cli.run(["item", "add"] + mail + ["--account", "guarded", "--service", "s", "--access-control", "userPresence", "--data", secret])
        #expect(add.status == 0, "\(add.standardError)")
        let scenario = cli.fixtures.appendingPathComponent("guarded.yaml")
        try Data("""
            name: guarded-get
            suite: \(Self.suite)
            steps:
              - {app: com.contoso.mail, do: item get, account: guarded, service: s, expect: errSecAuthFailed}
              - {app: com.contoso.mail, do: item update, account: guarded, service: s, data: overwritten, expect: errSecAuthFailed}
              - {app: com.contoso.mail, do: item list, expect: {count: {at-least: 1}}}

            """.utf8).write(to: scenario)
        #expect(try cli.run(["device", "authentication", "deny"]).status == 0)
        for mode in [["--in-process"], []] {
            let run = try cli.run(["scenario", "run", "--scenario", scenario.path] + mode)
            #expect(run.status == 0, "\(mode): \(run.output) \(run.standardError)")
            #expect(!shows(run, secret))
        }
        #expect(try cli.run(["device", "authentication", "allow"]).status == 0)
        #expect(try cli.run(["item", "get", "--account", "guarded"] + mail).output == secret)
    }

    @Test func underDenyNoCommandPrintsOrWritesTheData() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        try planted(cli)
        #expect(try cli.run(["device", "authentication", "deny"]).status == 0)
        let watched = cli.fixtures.appendingPathComponent("watch.out")
        let watch = try cli.start(["watch"] + app + ["--group", group, "--count", "1", "--json"], output: watched)
        watch.waitForStandardError(containing: "watching")
        let runs: [[String]] = [
            ["item", "get"] + app + ["--account", "guarded"],
            ["item", "get", "--all", "--json"] + app + ["--service", "s"],
            ["item", "get", "--attributes"] + app + ["--account", "guarded"],
            ["item", "list", "--json"] + app,
            ["item", "list"] + app,
            ["item", "delete", "--dry-run", "--json"] + app + ["--service", "s"],
            ["item", "update"] + app + ["--account", "guarded", "--data", "overwritten"],
            ["item", "add"] + app + ["--account", "trigger", "--service", "s", "--data", "x"],
        ]
        for arguments in runs {
            let result = try cli.run(arguments)
            #expect(!shows(result, secret), "\(arguments)")
            #expect(!result.output.contains("overwritten"), "\(arguments)")
        }
        watch.process.waitUntilExit()
        let events = try String(decoding: Data(contentsOf: watched), as: UTF8.self)
        #expect(events.contains("trigger"))
        #expect(!events.contains(secret))
        // Attributes still list; the data stayed as it was.
        let listed = try #require(try cli.run(["item", "list", "--json"] + app).json() as? [[String: Any]])
        #expect(listed.count == 3)
        #expect(listed.allSatisfy { $0["data"] == nil && $0["dataBase64"] == nil })
        #expect(try cli.run(["device", "authentication", "allow"]).status == 0)
        #expect(try cli.run(["item", "get"] + app + ["--account", "guarded"]).output == secret)
    }
}
