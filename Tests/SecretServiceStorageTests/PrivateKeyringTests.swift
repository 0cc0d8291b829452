import Foundation
@testable import SecretServiceStorage
import Testing

/// The embedded keyring's lifecycle, each test on a keyring (bus and daemon) of its own. Items
/// go through `secret-tool`, since this process's libsecret talks to the shared test bus.
@Suite("Private keyring")
struct PrivateKeyringTests {
    @Test("start is idempotent, status reports the daemons, stop stops them")
    func lifecycle() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)

        #expect(keyring.status().running == false)
        let started = try keyring.start()
        #expect(started.running)
        let pid = try #require(started.pid)
        let busPid = try #require(started.busPid)
        #expect(ProcessTable.isRunning(pid, named: "gnome-keyring-daemon"))
        #expect(ProcessTable.isRunning(busPid, named: "dbus-daemon"))
        #expect(started.bus == keyring.busAddress)
        #expect(started.stateDirectory == directory.standardizedFileURL.path)

        // A second start reuses both daemons.
        let again = try keyring.start()
        #expect(again.pid == pid)
        #expect(again.busPid == busPid)
        #expect(keyring.status() == again)

        // The status is JSON for `keyring status`.
        let json = try JSONEncoder().encode(keyring.status())
        let decoded = try JSONDecoder().decode(KeyringStatus.self, from: json)
        #expect(decoded.running && decoded.pid == pid)

        let stopped = try keyring.stop()
        #expect(!stopped.running)
        #expect(stopped.pid == nil)
        #expect(ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10))
        #expect(ProcessTable.waitForExit(busPid, named: "dbus-daemon", seconds: 10))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("bus").path))
        // Stopping a stopped keyring is fine.
        #expect(try keyring.stop().running == false)
    }

    /// Issue 19: a daemon stopped with SIGSTOP let `item list --timeout 5s` run 7.1 s: starting
    /// (reusing) the keyring asked the hung daemon for 2 s before the command's own call waited
    /// out its --timeout. Reusing it now asks only the bus; `status()` still probes the daemon.
    @Test("reusing a running keyring never waits on a hung daemon; status still tells it is hung")
    func reuseDoesNotProbeAHungDaemon() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)
        defer { _ = try? keyring.stop() }
        let pid = try #require(try keyring.start().pid)
        try #require(kill(pid, SIGSTOP) == 0)
        defer { kill(pid, SIGCONT) }
        let reused = try keyring.start()
        #expect(reused.pid == pid)
        #expect(reused.state == .running)
        #expect(keyring.status().state == .notResponding)
    }

    @Test("the state directory is private and the password is created once")
    func privateState() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)
        let password = try keyring.masterPassword()
        #expect(password.count >= 43)  // 32 random bytes in base64
        #expect(try keyring.masterPassword() == password)
        #expect(try PrivateKeyring(stateDirectory: directory).masterPassword() == password)

        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        let passwordMode = try FileManager.default.attributesOfItem(
            atPath: directory.appendingPathComponent("password").path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        #expect(passwordMode == 0o600)
    }

    @Test("items persist across stop and start, and a killed daemon is restarted with them")
    func persistence() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)
        defer { _ = try? keyring.stop() }
        let first = try keyring.start()

        let stored = try SecretTool.run(
            ["store", "--label=persist", "access-group", "persist.test", "account", "a"], bus: keyring.busAddress,
            input: "kept")
        #expect(stored.status == 0)

        // Stop both daemons, start again: same bus address, the item is there.
        try keyring.stop()
        let second = try keyring.start()
        #expect(second.bus == first.bus)
        #expect(second.pid != first.pid)
        var lookup = try SecretTool.run(["lookup", "access-group", "persist.test", "account", "a"], bus: keyring.busAddress)
        #expect(lookup.text == "kept")

        // kill -9 the daemon: the next start brings it back on the same bus, items intact.
        let pid = try #require(second.pid)
        kill(pid, SIGKILL)
        #expect(ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10))
        #expect(keyring.status().running == false)
        let third = try keyring.start()
        #expect(third.running)
        #expect(third.busPid == second.busPid)
        #expect(third.pid != pid)
        lookup = try SecretTool.run(["lookup", "access-group", "persist.test", "account", "a"], bus: keyring.busAddress)
        #expect(lookup.text == "kept")
    }

    @Test("a state directory too deep for a unix socket path gets a short socket under /tmp")
    func longStatePath() throws {
        let base = Fixture.stateDirectory("deep")
        defer { try? FileManager.default.removeItem(at: base) }
        let directory = base.appendingPathComponent(String(repeating: "d", count: 60))
            .appendingPathComponent(String(repeating: "e", count: 60))
        let keyring = PrivateKeyring(stateDirectory: directory)
        defer { _ = try? keyring.stop() }
        #expect(keyring.busAddress.hasPrefix("unix:path=/tmp/shared-keychain-"))
        #expect(keyring.busAddress.utf8.count - "unix:path=".utf8.count <= 107)
        let status = try keyring.start()
        #expect(status.running)
        #expect(try keyring.start().pid == status.pid)
    }

    /// The processes whose command line or environment names `needle`, read from /proc here
    /// rather than through the code under test.
    static func processes(mentioning needle: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            ["cmdline", "environ"].contains { file in
                let data = FileManager.default.contents(atPath: "/proc/\(pid)/\(file)") ?? Data()
                let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
                // A zombie has gone already.
                return !stat.contains(") Z ") && String(decoding: data, as: UTF8.self).contains(needle)
            }
        }
    }

    /// Issue 27, finding 6: a FIFO in place of keyring.json refused every command, but each
    /// start left a dbus-daemon (and a gnome-keyring-daemon) running that `stop` never found.
    @Test("a start refused for a FIFO in place of keyring.json starts nothing and says what to remove")
    func refusedStartLeavesNothing() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)
        defer { _ = try? keyring.stop() }
        _ = try keyring.masterPassword()  // the state directory
        let state = directory.appendingPathComponent("keyring.json").path
        try #require(mkfifo(state, 0o600) == 0)
        #expect {
            try keyring.start()
        } throws: { error in
            "\(error)".contains(state) && "\(error)".contains("a FIFO") && "\(error)".contains("rm ")
        }
        #expect(Self.processes(mentioning: directory.path).isEmpty)
    }

    @Test("stop ends the daemons of a start that keyring.json does not record")
    func stopEndsUnrecordedDaemons() throws {
        let directory = Fixture.stateDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyring = PrivateKeyring(stateDirectory: directory)
        defer { _ = try? keyring.stop() }
        let started = try keyring.start()
        let pid = try #require(started.pid)
        let busPid = try #require(started.busPid)
        // The record is lost (a FIFO in its place): the daemons run on, unrecorded.
        let state = directory.appendingPathComponent("keyring.json").path
        try #require(unlink(state) == 0 && mkfifo(state, 0o600) == 0)
        #expect(keyring.status().running == false)
        try keyring.stop()
        #expect(ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10))
        #expect(ProcessTable.waitForExit(busPid, named: "dbus-daemon", seconds: 10))
        #expect(Self.processes(mentioning: directory.path).isEmpty)
    }
}
