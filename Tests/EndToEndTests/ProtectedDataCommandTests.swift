import Foundation
import Testing

/// Issue 30, point 3: protected data from the command line. `device status` shows it per class,
/// `device launch --prewarm` launches an installed app before the first unlock, and `watch
/// --protected-data` prints the device's notifications as another process locks and unlocks.
@Suite("End to end: protected data", .serialized)
struct ProtectedDataCommandTests {
    let mail = "com.contoso.mail"

    /// The example suite installed, and Alice signed in to Mail.
    func signedIn(_ cli: CLI) throws {
        let suite = cli.fixtures.appendingPathComponent("suite").path
        #expect(try cli.run(["suite", "init", "--suite", suite]).status == 0)
        let installed = try cli.run(["device", "install", "--suite", suite])
        #expect(installed.status == 0, "\(installed.standardError)")
        let signIn = try cli.run(["token", "signin", "--user", "alice@contoso.com", "--app", mail])
        #expect(signIn.status == 0, "\(signIn.standardError)")
    }

    @Test func aPrewarmedLaunchBeforeTheFirstUnlockReadsMinus25308AndTheWaitingOneReadsAfterTheUnlock() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        try signedIn(cli)
        #expect(try cli.run(["device", "reboot"]).status == 0)

        let status = try cli.run(["device", "status", "--json"]).jsonObject()
        #expect(status["protectedDataAvailable"] as? Bool == false)
        let classes = try #require(status["protectedData"] as? [[String: Any]])
        #expect(classes.filter { $0["available"] as? Bool == true }.compactMap { $0["accessibility"] as? String } == ["always", "alwaysThisDeviceOnly"])
        #expect(classes.first { $0["accessibility"] as? String == "afterFirstUnlockThisDeviceOnly" }?["reason"] as? String
            == "the device was not unlocked since it booted")
        let statusText = try cli.run(["device", "status"]).output
        #expect(statusText.contains("protected data: unavailable (isProtectedDataAvailable false"))
        #expect(statusText.contains("  afterFirstUnlock: unavailable, the device was not unlocked since it booted\n"))

        // Opened by the user on a locked device: refused.
        let opened = try cli.run(["device", "launch", mail])
        #expect(opened.status == 10)
        #expect(opened.standardError.contains("--prewarm"))

        let launch = try cli.run(["device", "launch", "--prewarm", mail, "--json"])
        #expect(launch.status == 0, "\(launch.standardError)")
        let launched = try launch.jsonObject()
        #expect(launched["beforeFirstUnlock"] as? Bool == true)
        #expect(launched["protectedDataAvailable"] as? Bool == false)
        #expect(launched["status"] as? Int == -25308)
        #expect(launched["statusName"] as? String == "errSecInteractionNotAllowed")
        #expect(launched["accounts"] is NSNull)
        let text = try cli.run(["device", "launch", "--prewarm", mail]).output
        #expect(text.contains("launched com.contoso.mail, prewarmed by iOS, before the first unlock since boot\n"))
        #expect(text.contains("reads its accounts (MSAL allAccounts): errSecInteractionNotAllowed (-25308)\n"))
        #expect(text.contains("hazard prewarm-logout"))

        // The fix: wait for protectedDataDidBecomeAvailable, posted by an unlock in another process.
        let waiting = try WatchProcess(cli, ["device", "launch", "--prewarm", mail, "--wait-for-protected-data"])
        defer { waiting.stop() }
        let announced = try waiting.waitForStandardError(containing: "waits for protectedDataDidBecomeAvailable")
        #expect(announced.contains("com.contoso.mail waits for protectedDataDidBecomeAvailable"), "\(announced)")
        #expect(try cli.run(["device", "unlock"]).status == 0)
        let finished = try waiting.waitForExit()
        #expect(finished.status == 0, "\(finished.standardError)")
        #expect(finished.output.contains("after protectedDataDidBecomeAvailable, com.contoso.mail reads its accounts (MSAL allAccounts): 1 account: alice@contoso.com\n"), "\(finished.output)")
    }

    @Test func watchPrintsProtectedDataNotificationsAsAnotherProcessLocksAndUnlocks() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        try signedIn(cli)
        let watch = try WatchProcess(cli, ["watch", "--app", mail, "--protected-data", "--count", "2", "--json"])
        defer { watch.stop() }
        _ = try watch.waitUntilSubscribed()
        #expect(try cli.run(["device", "lock"]).status == 0)
        #expect(try cli.run(["device", "unlock"]).status == 0)
        let finished = try watch.waitForExit()
        #expect(finished.status == 0, "\(finished.standardError)")
        let events = try finished.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        #expect(events.compactMap { $0["kind"] as? String } == ["protectedDataWillBecomeUnavailable", "protectedDataDidBecomeAvailable"])
        #expect(events.compactMap { $0["locked"] as? Bool } == [true, false])
        #expect(events.allSatisfy { $0["unlockedSinceBoot"] as? Bool == true && $0["time"] is String })
    }
}
