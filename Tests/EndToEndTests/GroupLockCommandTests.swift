import Foundation
import KeychainTestSupport
import Testing

/// Issue 27, finding 4, as real processes: another process holding a group's lock and stopped,
/// or cutting the lock file short, neither kills a command nor holds it past its --timeout.
@Suite("End to end: a group's lock file in other hands", .serialized)
struct GroupLockCommandTests {
    let app = ["--app", "com.contoso.locks", "--team", "ABCDE12345"]
    let group = "ABCDE12345.com.contoso.locks"

    /// The group's lock file, made by a first command.
    func lockFile(_ cli: CLI) throws -> String {
        let added = try cli.run(["item", "add", "--account", "first", "--service", "svc", "--data", "x"] + app)
        try #require(added.status == 0, "\(added.standardError)")
        let locks = cli.stateDirectory.appendingPathComponent("locks")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: locks.path).first { $0.hasPrefix("\(group)-") && $0.hasSuffix(".lock") })
        return locks.appendingPathComponent(name).path
    }

    @Test("item add behind a lock held by a stopped process fails at its --timeout, naming the lock file and the process", .timeLimit(.minutes(2)))
    func stoppedHolderAndTimeout() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        let path = try lockFile(cli)
        let holder = try StoppedLockHolder(path: path)
        defer { holder.end() }
        let blocked = try cli.run(["item", "add", "--account", "second", "--service", "svc", "--data", "y", "--timeout", "1s"] + app)
        #expect(blocked.status != 0)
        let message = blocked.standardError
        #expect(message.contains(path), "\(message)")
        #expect(message.contains("process \(holder.pid) (sleep), which is stopped"), "\(message)")
        #expect(message.contains("kill -CONT \(holder.pid)"), "\(message)")
        #expect(!message.contains("daemon"), "\(message)")
        // Continued and gone, the lock is free again.
        holder.end()
        #expect(try cli.run(["item", "add", "--account", "second", "--service", "svc", "--data", "y", "--timeout", "1s"] + app).status == 0)
    }

    @Test("load goes on while another process cuts the group's lock file short again and again", .timeLimit(.minutes(2)))
    func loadSurvivesTruncation() throws {
        let cli = try CLI()
        defer { cli.tearDown() }
        #expect(try cli.run(["keyring", "start"]).status == 0)
        let output = cli.fixtures.appendingPathComponent("load.json")
        let running = try cli.start(["load", "--apps", "2", "--duration", "3", "--warmup", "0", "--items", "10", "--json"], output: output)
        // Once the apps report progress, their lock files are mapped: cut them short until the end.
        running.waitForStandardError(containing: " calls")
        // Read on, so a full pipe never stops the run.
        let errors = running.errors.fileHandleForReading
        DispatchQueue.global().async { _ = errors.readDataToEndOfFile() }
        let locks = cli.stateDirectory.appendingPathComponent("locks")
        var cuts = 0
        while running.process.isRunning {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: locks.path)) ?? [] where name.hasSuffix(".lock") {
                let descriptor = open(locks.appendingPathComponent(name).path, O_WRONLY)
                guard descriptor >= 0 else { continue }
                if ftruncate(descriptor, 0) == 0 { cuts += 1 }
                close(descriptor)
            }
            sched_yield()
        }
        running.process.waitUntilExit()
        #expect(cuts > 0)
        // Not 135 (SIGBUS): every worker lived to report.
        #expect(running.process.terminationStatus == 0)
        #expect(running.process.terminationReason == .exit)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any])
        #expect(!report.isEmpty)
    }
}
