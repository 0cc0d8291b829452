import Foundation
import Synchronization
import Testing

/// `shared-keychain watch` as a separate process, while other processes (other apps) act.
@Suite("End to end: watching a group")
struct WatchCommandTests {
    let team = "ABCDE12345"
    let group = "ABCDE12345.com.microsoft.adalcache"

    func apps(_ cli: CLI) throws -> (mail: [String], calendar: [String], notes: [String]) {
        let shared = try cli.entitlements("shared", groups: ["$(AppIdentifierPrefix)com.microsoft.adalcache"])
        return (
            ["--app", "com.contoso.mail", "--team", team, "--entitlements", shared],
            ["--app", "com.contoso.calendar", "--team", team, "--entitlements", shared],
            ["--app", "com.contoso.notes", "--team", team]
        )
    }

    @Test func mailSeesCalendarAddChangeAndWipeItsTokensAsTheyHappen() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar, _) = try apps(cli)
        let added = try cli.run(["item", "add", "--account", "mail-user", "--service", "refreshtoken-client--", "--data", "rt-mail"] + mail)
        #expect(added.status == 0, "\(added.standardError)")

        let watch = try WatchProcess(cli, ["watch", "--group", group, "--count", "6", "--json"] + mail)
        defer { watch.stop() }
        let ready = try watch.waitUntilSubscribed()
        #expect(ready == "watching \(group) (1 item); stops after 6 events; Ctrl-C to stop")

        let calendarItem = ["--account", "alice", "--service", "refreshtoken-client--"]
        for step in [
            ["item", "add", "--data", "rt-1"] + calendarItem,
            ["item", "update", "--data", "rt-2"] + calendarItem,
            ["item", "add", "--account", "bob", "--service", "idtoken-client--", "--data", "id-1"],
            // Wipe the group, as MSAL's wipeCacheForAllAccounts does.
            ["item", "delete", "--group", group, "--all"],
        ] {
            let result = try cli.run(step + calendar)
            #expect(result.status == 0, "\(step): \(result.standardError)")
        }

        let finished = try watch.waitForExit()
        #expect(finished.status == 0, "\(finished.standardError)")
        let lines = finished.output.split(separator: "\n").map(String.init)
        let events = try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        try #require(events.count == 6, "\(finished.output)")
        let summary = events.map { event in
            ["kind", "account", "addedBy"].map { event[$0] as? String ?? "-" }.joined(separator: " ")
        }
        #expect(Array(summary.prefix(3)) == [
            "created alice com.contoso.calendar", "changed alice com.contoso.calendar", "created bob com.contoso.calendar",
        ])
        // The wipe took mail's own token too: mail learns it at once, with who created what.
        #expect(Set(summary.suffix(3)) == [
            "deleted mail-user com.contoso.mail", "deleted alice com.contoso.calendar", "deleted bob com.contoso.calendar",
        ])
        for event in events {
            #expect(event["group"] as? String == group)
            #expect(Set(event.keys) == ["time", "kind", "group", "account", "service", "addedBy"])
            let time = try #require(event["time"] as? String)
            #expect(try Date(time, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) <= Date())
        }
        for secret in ["rt-mail", "rt-1", "rt-2", "id-1"] {
            #expect(!finished.output.contains(secret), "the watch printed data: \(secret)")
        }
    }

    @Test func textLinesRefusalWithoutEntitlementAndCleanStops() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let (mail, calendar, notes) = try apps(cli)

        // A group the app is not entitled to: errSecMissingEntitlement, exit 13, no stream.
        let refused = try cli.run(["watch", "--group", group, "--json"] + notes)
        #expect(refused.status == 13)
        #expect(refused.standardError.contains("-34018"))
        #expect(refused.output.isEmpty)

        // Text output until SIGTERM, which ends the watch with status 0.
        let watch = try WatchProcess(cli, ["watch", "--group", group] + mail)
        defer { watch.stop() }
        #expect(try watch.waitUntilSubscribed() == "watching \(group) (0 items); Ctrl-C to stop")
        #expect(try cli.run(["item", "add", "--account", "alice", "--service", "s", "--data", "x"] + calendar).status == 0)
        let line = try watch.waitForOutput(containing: "alice")
        let fields = line.components(separatedBy: "  ")
        #expect(fields.count == 6, "\(line)")
        #expect(Array(fields.dropFirst()) == ["created", group, "alice", "s", "com.contoso.calendar"])
        #expect(fields.first?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) != nil)
        watch.signal(SIGTERM)
        #expect(try watch.waitForExit().status == 0)

        // --for ends on its own, with status 0.
        let timed = try cli.run(["watch", "--for", "0.5"] + mail)
        #expect(timed.status == 0, "\(timed.standardError)")
        #expect(timed.standardError.contains("stops after 0.5 s"))
    }
}

/// A running `shared-keychain watch`: its output is read as it comes, so a test can wait for
/// the "watching" line and for events without sleeping, each wait bounded by a deadline.
final class WatchProcess {
    struct Finished {
        let status: Int32
        let output: String
        let standardError: String
    }

    private let process: Process
    private let standardOutput = Collected()
    private let standardError = Collected()
    private let exited = DispatchSemaphore(value: 0)

    init(_ cli: CLI, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments + ["--state-dir", cli.stateDirectory.path]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment.removeValue(forKey: "SHARED_KEYCHAIN_STATE_DIR")
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = standardOutput.pipe
        process.standardError = standardError.pipe
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        self.process = process
        try process.run()
    }

    /// The line the watch writes to standard error once subscribed.
    func waitUntilSubscribed(within seconds: Double = 60) throws -> String {
        let text = try standardError.wait(within: seconds, what: "the 'watching' line") { text in
            text.contains("; Ctrl-C to stop\n") || text.contains("error")
        }
        return try #require(text.split(separator: "\n").map(String.init).first { $0.hasPrefix("watching ") }, "\(text)")
    }

    /// Standard error so far, once it contains `fragment` (or the process closed it).
    func waitForStandardError(containing fragment: String, within seconds: Double = 60) throws -> String {
        try standardError.wait(within: seconds, what: "'\(fragment)' on standard error") { $0.contains(fragment) || $0.contains("error") }
    }

    /// The first output line containing `fragment`.
    func waitForOutput(containing fragment: String, within seconds: Double = 30) throws -> String {
        let text = try standardOutput.wait(within: seconds, what: "an event naming '\(fragment)'") { text in
            text.split(separator: "\n").contains { $0.contains(fragment) }
        }
        return try #require(text.split(separator: "\n").map(String.init).first { $0.contains(fragment) })
    }

    /// Waits for the process to end and for all its output.
    func waitForExit(within seconds: Double = 60) throws -> Finished {
        guard exited.wait(timeout: .now() + seconds) == .success else {
            process.terminate()
            throw WatchTimeout(what: "the watch to exit", seconds: seconds, output: standardOutput.text)
        }
        exited.signal()  // Later waits (stop) return at once.
        let output = try standardOutput.wait(within: seconds, what: "the end of standard output") { _ in false }
        let errors = try standardError.wait(within: seconds, what: "the end of standard error") { _ in false }
        return Finished(status: process.terminationStatus, output: output, standardError: errors)
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Ends the process if it still runs (a failed test must not leave it behind).
    func stop() {
        if process.isRunning { process.terminate() }
        _ = exited.wait(timeout: .now() + 10)
        exited.signal()
    }
}

/// A pipe read as data arrives, with a way to wait for a condition on what came so far.
private final class Collected: Sendable {
    let pipe = Pipe()
    private let state = Mutex<(data: Data, closed: Bool)>((Data(), false))
    private let changed = DispatchSemaphore(value: 0)

    init() {
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let chunk = handle.availableData
            if chunk.isEmpty { handle.readabilityHandler = nil }
            self?.append(chunk)
        }
    }

    private func append(_ chunk: Data) {
        state.withLock { state in
            if chunk.isEmpty { state.closed = true } else { state.data.append(chunk) }
        }
        changed.signal()
    }

    var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

    /// What was read once `condition` holds for it or the pipe closed; throws at the deadline.
    func wait(within seconds: Double, what: String, until condition: (String) -> Bool) throws -> String {
        let deadline = DispatchTime.now() + seconds
        while true {
            let (text, closed) = state.withLock { (String(decoding: $0.data, as: UTF8.self), $0.closed) }
            if closed || condition(text) { return text }
            guard changed.wait(timeout: deadline) == .success else {
                throw WatchTimeout(what: what, seconds: seconds, output: text)
            }
        }
    }
}

struct WatchTimeout: Error, CustomStringConvertible {
    let what: String
    let seconds: Double
    let output: String
    var description: String { "waited \(seconds) s for \(what); output so far: \(output)" }
}
