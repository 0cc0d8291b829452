import Foundation
import Testing

/// Issue 22 on the command line: accounts given as bytes (--account-hex), synchronizable twins,
/// internet passwords (--class internet), access controls and `device authentication`.
@Suite("End to end: Data accounts, twins, internet passwords, access control", .serialized)
struct ItemKeyCommandTests {
    let app = ["--app", "com.contoso.mail", "--team", "ABCDE12345"]

    @Test func bytesAccountsTwinsAndInternetPasswords() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        #expect(try cli.run(["item", "add"] + app + ["--account-hex", "fffe00", "--service", "svc", "--data", "bytes"]).status == 0)
        #expect(try cli.run(["item", "add"] + app + ["--account", "alice", "--service", "svc", "--data", "local"]).status == 0)
        #expect(try cli.run(["item", "add"] + app + ["--account", "alice", "--service", "svc", "--synchronizable", "--data", "synced"]).status == 0)
        // "alice" as bytes is the same key as the text.
        #expect(try cli.run(["item", "add"] + app + ["--account-hex", "616c696365", "--service", "svc", "--data", "x"]).status == 12)
        #expect(try cli.run(["item", "get"] + app + ["--account-hex", "fffe00"]).output == "bytes")
        let attributes = try cli.run(["item", "get"] + app + ["--account-hex", "FFFE00", "--attributes"]).jsonObject()
        #expect(attributes["accountHex"] as? String == "fffe00")
        #expect(try cli.run(["item", "get"] + app + ["--account", "alice", "--synchronizable", "true"]).output == "synced")
        #expect(try cli.run(["item", "get"] + app + ["--account", "alice", "--synchronizable", "false"]).output == "local")
        #expect(try cli.run(["item", "get"] + app + ["--account-hex", "abc"]).status == 10)

        let add = try cli.run(["item", "add"] + app + [
            "--class", "internet", "--account", "bob", "--server", "example.com", "--protocol", "htps", "--port", "443", "--data", "web",
        ])
        #expect(add.status == 0, "\(add.standardError)")
        #expect(add.output.contains("internet password for account 'bob', server 'example.com'"))
        #expect(try cli.run(["item", "add"] + app + ["--class", "internet", "--account", "bob", "--server", "example.com", "--service", "s", "--data", "x"]).status == 10)
        #expect(try cli.run(["item", "add"] + app + ["--account", "bob", "--server", "example.com", "--service", "s", "--data", "x"]).status == 10)
        #expect(try cli.run(["item", "get"] + app + ["--server", "example.com", "--port", "443"]).output == "web")
        let found = try cli.run(["item", "get"] + app + ["--class", "internet", "--json"]).jsonObject()
        #expect(found["class"] as? String == "internet")
        #expect(found["protocol"] as? String == "htps")
        #expect(try cli.run(["item", "update"] + app + ["--class", "internet", "--new-port", "8443"]).status == 0)
        #expect(try cli.run(["item", "get"] + app + ["--port", "8443"]).output == "web")
        let generic = try #require(try cli.run(["item", "list"] + app + ["--class", "generic", "--json"]).json() as? [[String: Any]])
        #expect(generic.count == 3)
        #expect(try cli.run(["item", "delete"] + app + ["--class", "internet"]).status == 0)
        #expect(try #require(try cli.run(["item", "list"] + app + ["--json"]).json() as? [[String: Any]]).count == 3)
    }

    @Test func accessControlsAskTheDevice() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let add = try cli.run(["item", "add"] + app + ["--account", "g", "--service", "s", "--access-control", "userPresence", "--data", "guarded"])
        #expect(add.status == 0, "\(add.standardError)")
        #expect(try cli.run(["item", "get"] + app + ["--account", "g"]).output == "guarded")
        #expect(try cli.run(["item", "get"] + app + ["--account", "g", "--authentication-ui", "fail"]).status == 14)
        #expect(try cli.run(["item", "get"] + app + ["--account", "g", "--authentication-ui", "skip"]).status == 11)
        let denied = try cli.run(["device", "authentication", "deny", "--json"])
        #expect(try denied.jsonObject()["authentication"] as? String == "deny")
        let file = cli.stateDirectory.appendingPathComponent("device/authentication.json")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try cli.run(["item", "get"] + app + ["--account", "g"]).status == 19)
        #expect(try cli.run(["item", "update"] + app + ["--account", "g", "--new-label", "x"]).status == 19)
        let attributes = try cli.run(["item", "get"] + app + ["--account", "g", "--attributes"])
        #expect(attributes.status == 0)
        #expect(try attributes.jsonObject()["accessControl"] as? [String] == ["userPresence"])
        #expect(try cli.run(["device", "authentication", "cancel"]).status == 0)
        #expect(try cli.run(["device", "status"]).output.contains("authentication: cancel"))
        #expect(try cli.run(["item", "get"] + app + ["--account", "g"]).status == 22)
        #expect(try cli.run(["device", "authentication", "maybe"]).status != 0)
        // Deleting never asks.
        #expect(try cli.run(["item", "delete"] + app + ["--account", "g"]).status == 0)
        // A damaged answer file is named, never taken for an answer.
        try Data("{".utf8).write(to: file)
        let damaged = try cli.run(["item", "list"] + app)
        #expect(damaged.status != 0)
        #expect(damaged.standardError.contains("authentication.json"))
    }
}
