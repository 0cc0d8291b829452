import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// Issue 27, finding 4: any app of a group can cut its lock file short or hold its lock and
/// stop. Neither may kill or hang another process: the words survive the file shrinking, and a
/// wait ends at its limit with an error naming the file and the process that holds it.
@Suite("Group locks against other processes")
struct GroupLockTests {
    let directory = Fixture.stateDirectory("locks")

    /// Cuts `path` to no bytes, as another process may at any time.
    func truncate(_ path: String) throws {
        let descriptor = open(path, O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(ftruncate(descriptor, 0) == 0)
    }

    func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    @Test("a lock file cut short while mapped: versions and locking go on, and the next hold restores it")
    func truncatedWhileMapped() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let locks = GroupLocks(directory: directory, waitLimit: 1)
        let group = "ABCDE12345.com.contoso.shared"
        let path = locks.lockFile(for: group).path
        let first = try locks.withLocks([group]) { () throws(StorageError) -> UInt32? in
            let start = locks.beginChange(of: group)
            _ = locks.endChange(of: group)
            return start
        }
        #expect(first != nil)
        let before = try #require(locks.version(of: group))
        try truncate(path)
        // The mapping has nothing behind it: touching it would raise SIGBUS.
        #expect(locks.version(of: group) == nil)
        #expect(locks.beginChange(of: group) == nil)
        #expect(locks.endChange(of: group) == nil)
        let restored = try locks.withLocks([group]) { () throws(StorageError) -> UInt32? in
            #expect(size(path) == LockFileWords.size)
            let start = locks.beginChange(of: group)
            #expect(start.map { $0 % 2 } == 0)
            #expect(locks.endChange(of: group) == start.map { $0 &+ 2 })
            return start
        }
        // The version starts again from a random even number, unlikely to be one kept before.
        #expect(locks.version(of: group) == restored.map { $0 &+ 2 } && restored != before)
    }

    @Test("a waiter on a lock file cut short while held waits out its limit and names the holder")
    func waiterOnTruncatedFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let locks = GroupLocks(directory: directory, waitLimit: 0.3)
        let group = "ABCDE12345.com.contoso.cut"
        let path = locks.lockFile(for: group).path
        try locks.withLocks([group]) {}
        // This process holds it through a descriptor of its own, like another process would.
        let holder = open(path, O_RDWR)
        try #require(holder >= 0 && flock(holder, LOCK_EX | LOCK_NB) == 0)
        defer { close(holder) }
        try truncate(path)
        #expect {
            try locks.withLocks([group]) {}
        } throws: { error in
            guard case .lockTimedOut(let named, let file, let seconds, let found)? = error as? StorageError else { return false }
            return named == group && file == path && seconds == 0.3 && found?.pid == getpid() && found?.state == .running
        }
    }

    @Test("a lock held by a stopped process: the wait ends at its limit, naming the file, the process and what to do", .timeLimit(.minutes(1)))
    func stoppedHolder() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let locks = GroupLocks(directory: directory, waitLimit: 0.5)
        let group = "ABCDE12345.com.contoso.stopped"
        let path = locks.lockFile(for: group).path
        try locks.withLocks([group]) {}
        let holder = try StoppedLockHolder(path: path)
        defer { holder.end() }
        var failure: StorageError?
        do { try locks.withLocks([group]) {} } catch { failure = error }
        guard case .lockTimedOut(let named, let file, _, let found)? = failure else {
            Issue.record("expected .lockTimedOut, got \(String(describing: failure))")
            return
        }
        #expect(named == group && file == path)
        #expect(found == LockHolder(pid: holder.pid, command: "sleep", state: .stopped))
        let message = failure?.description ?? ""
        #expect(message.contains(path) && message.contains("process \(holder.pid) (sleep)"))
        #expect(message.contains("kill -CONT \(holder.pid)"))
        #expect(!message.contains("daemon"))
    }
}
