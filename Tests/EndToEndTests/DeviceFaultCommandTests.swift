import Foundation
import Testing

/// Issue 30, point 4: `device fault add|list|clear`. The plan is the device's: every process
/// using the state directory consumes it, a count once for all of them, and each injected
/// fault says it was injected.
@Suite("End to end: the device's fault plan", .serialized)
struct DeviceFaultCommandTests {
    static let clientID = "0a1b2c3d-1111-4111-8111-111111111111"
    static let mail = ["--app", "com.contoso.mail", "--team", "ABCDE12345", "--keyring", "memory"]

    @Test func aCountOfTwoFailsExactlyTwoCallsAmongConcurrentProcesses() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let added = try cli.run([
            "device", "fault", "add", "--call", "SecItemCopyMatching", "--status", "errSecInteractionNotAllowed", "--count", "2",
            "--app", "com.contoso.mail",
        ])
        #expect(added.status == 0, "\(added.standardError)")
        #expect(added.output.contains("added fault rule 1: SecItemCopyMatching in any group, as com.contoso.mail -> errSecInteractionNotAllowed (-25308), next 2 calls"))
        // Each process has its own memory store: a read that is not failed finds nothing (11).
        let results = try cli.runConcurrently(Array(repeating: ["item", "get", "--account", "a"] + Self.mail, count: 6))
        let injected = results.filter { $0.status == 14 }
        #expect(injected.count == 2, "\(results.map(\.status))")
        #expect(results.filter { $0.status == 11 }.count == 4)
        #expect(injected.allSatisfy { $0.standardError.contains("injected by fault plan rule 1") })
        let rules = try cli.run(["device", "fault", "list", "--json"]).jsonArray()
        #expect(rules.map { $0["injected"] as? Int } == [2])
        #expect(rules.map { $0["matched"] as? Int } == [2])
        #expect(try cli.run(["device", "fault", "list"]).output.contains("next 2 calls (spent)"))
    }

    @Test func badRulesExitTenAndWriteNothing() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let cases: [([String], String)] = [
            (["--call", "SecItemRead", "--status", "-25308", "--count", "1"], "unknown call 'SecItemRead'"),
            (["--call", "SecItemAdd", "--status", "-12345", "--count", "1"], "is not a status a keychain call gives"),
            (["--call", "SecItemAdd", "--status", "-25308", "--count", "0"], "at least 1"),
            (["--call", "SecItemAdd", "--status", "-25308", "--probability", "1.5"], "(0, 1]"),
            (["--call", "SecItemAdd", "--status", "-25308", "--count", "1", "--every", "2"], "conflict"),
            (["--call", "SecItemAdd", "--status", "-25308"], "say when the fault fires"),
        ]
        for (arguments, message) in cases {
            let result = try cli.run(["device", "fault", "add"] + arguments)
            #expect(result.status == 10, "\(arguments)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
        }
        #expect(try cli.run(["device", "fault", "list", "--json"]).jsonArray().isEmpty)
        #expect(try cli.run(["device", "fault", "list"]).output == "0 fault rules\n")
    }

    @Test func traceMarksTheInjectedCallAndClearEndsThePlan() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        #expect(try cli.run(["device", "fault", "add", "--call", "SecItemAdd", "--status", "-34018", "--count", "1"]).status == 0)
        // MSAL's team-ID probe is the first add: it fails, and the trace says it was injected.
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--trace", "--client-id", Self.clientID] + Self.mail)
        #expect(signIn.status == 13, "\(signIn.standardError)")
        #expect(signIn.standardError.contains("SecItemAdd account='SDK.ObjC.teamIDHint'"))
        #expect(signIn.standardError.contains("-> errSecMissingEntitlement [injected: fault plan rule 1]"))
        let cleared = try cli.run(["device", "fault", "clear"])
        #expect(cleared.output == "removed 1 fault rule\n")
        #expect(try cli.run(["token", "signin", "--user", "alice@contoso.com", "--client-id", Self.clientID] + Self.mail).status == 0)
    }
}
