import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Synchronization
import Testing

/// The keyring is the truth, the shard index a hint (issue 19): an index that lost records,
/// names the wrong shard, cannot be parsed or is not a regular file hides no item and never lets
/// a key be taken twice; an index naming items the keyring lost says so.
@Suite("The keyring is the truth, the shard index a hint")
struct IndexTrustTests {
    /// A store with shards of `capacity` items, logging its warnings to `log`.
    static func store(_ log: WarningLog = WarningLog(), capacity: Int = 2) throws -> SecretServiceStore {
        try TestKeyring.unguardedStore(.collectionPerGroup) { configuration in
            configuration.shardCapacity = capacity
            configuration.logger = log.logger
        }
    }

    /// How many items of `group` another client (`secret-tool search --all`) finds.
    static func keyringCount(_ group: String) throws -> Int {
        let found = try SecretTool.run(["search", "--all", "access-group", group], bus: TestKeyring.busAddress())
        return found.text.components(separatedBy: "attribute.access-group = \(group)\n").count - 1
    }

    /// Rewrites the group's index file with its header and the records `edit` returns.
    static func editRecords(_ store: SecretServiceStore, _ group: String, _ edit: ([String]) -> [String]) throws {
        let file = store.indexes.file(for: group)
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let text = ([lines[0]] + edit(Array(lines.dropFirst()))).joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: file)
    }

    /// `count` items of a new group, added through `store`.
    static func filledGroup(_ label: String, _ count: Int, _ store: SecretServiceStore) throws -> (String, [StoredItem]) {
        let group = TestKeyring.uniqueGroup(label)
        let items = (0..<count).map { Fixture.item(group, "a\($0)", at: Double($0)) }
        for item in items { try store.add(item) }
        return (group, items)
    }

    @Test("an index that lost records hides no item, and an add of a hidden key is a duplicate")
    func lostRecords() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Self.filledGroup("lostrecords", 6, try Self.store())
            // The header stays; four of six records are gone.
            try Self.editRecords(try Self.store(), group) { Array($0.prefix(2)) }

            // A fresh store (a new command) that adds first, then one that lists.
            let log = WarningLog()
            let adder = try Self.store(log)
            #expect(throws: StorageError.duplicateItem(items[4].primaryKey)) { try adder.add(Fixture.item(group, "a4")) }
            #expect(try Self.keyringCount(group) == 6)
            #expect(try Self.store().items(matching: Fixture.all(group), limit: nil) == items)
            #expect(try adder.items(matching: ItemQuery(groups: [group], account: "a5"), limit: nil) == [items[5]])
            #expect(log.messages.count == 1, "\(log.messages)")
            #expect(log.messages.first?.contains(group) == true, "\(log.messages)")
        }
    }

    @Test("an index naming the wrong shard hides no item, and an add of that key is a duplicate")
    func misplacedRecord() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Self.filledGroup("misplaced", 4, try Self.store())
            // a0 (shard 0) and a2 (shard 1) trade shards: every shard's count still agrees.
            try Self.editRecords(try Self.store(), group) { records in
                let swapped = records.map { $0.split(separator: " ").map(String.init) }
                return [
                    ([swapped[0][0], swapped[2][1]] + swapped[0][2...]).joined(separator: " "), records[1],
                    ([swapped[2][0], swapped[0][1]] + swapped[2][2...]).joined(separator: " "), records[3],
                ]
            }
            let log = WarningLog()
            let store = try Self.store(log)
            #expect(throws: StorageError.duplicateItem(items[0].primaryKey)) { try store.add(Fixture.item(group, "a0")) }
            #expect(try Self.keyringCount(group) == 4)
            #expect(try store.items(matching: ItemQuery(groups: [group], account: "a2", service: "service"), limit: nil) == [items[2]])
            #expect(log.messages.count == 1, "\(log.messages)")
        }
    }

    /// What sits where the index file should be.
    enum Damage: String, CaseIterable, CustomStringConvertible {
        case truncatedHeader, garbageRecord, directory, fifo, symlink
        var description: String { rawValue }

        /// Puts the damage at `file`; returns the symlink's target, whose bytes must not change.
        func apply(at file: URL) throws -> URL? {
            switch self {
            case .truncatedHeader:
                try Data("shared-keychain sha".utf8).write(to: file)
            case .garbageRecord:
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("+ zz not a record\n".utf8))
                try handle.close()
            case .directory:
                try FileManager.default.removeItem(at: file)
                try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
            case .fifo:
                try FileManager.default.removeItem(at: file)
                guard mkfifo(file.path, 0o600) == 0 else { throw POSIXError(.EIO) }
            case .symlink:
                let target = file.deletingLastPathComponent().appendingPathComponent("elsewhere-\(UUID().uuidString)")
                try FileManager.default.moveItem(at: file, to: target)
                try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
                return target
            }
            return nil
        }
    }

    @Test("a damaged index (torn header, bad record, directory, FIFO, symlink) is rebuilt from the keyring, once", arguments: Damage.allCases)
    func damagedIndexIsRebuilt(_ damage: Damage) throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Self.filledGroup("damaged", 3, try Self.store())
            let file = try Self.store().indexes.file(for: group)
            let target = try damage.apply(at: file)
            let before = try target.map { try Data(contentsOf: $0) }

            let log = WarningLog()
            let store = try Self.store(log)
            // Run where a hang shows as a failure, not a stuck test run.
            let listed = try #require(finishes { try store.items(matching: Fixture.all(group), limit: nil) })
            #expect(try listed.get() == items)
            #expect(throws: StorageError.duplicateItem(items[1].primaryKey)) { try store.add(Fixture.item(group, "a1")) }
            let added = Fixture.item(group, "new", at: 9)
            try store.add(added)
            #expect(try Self.store().items(matching: Fixture.all(group), limit: nil) == items + [added])
            #expect(log.messages.count == 1, "\(log.messages)")
            #expect(log.messages.first?.contains(file.path) == true, "\(log.messages)")
            var status = stat()
            #expect(lstat(file.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG)
            if let target { #expect(try Data(contentsOf: target) == before) }
        }
    }

    @Test("a lock file that is not a regular file is refused, naming it, never followed or waited on", arguments: [Damage.directory, .fifo, .symlink])
    func damagedLockFileIsRefused(_ damage: Damage) throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store()
            let (group, _) = try Self.filledGroup("badlock", 1, store)
            let lock = store.indexes.locks.lockFile(for: group)
            let target = try damage.apply(at: lock)
            let before = try target.map { try Data(contentsOf: $0) }

            let outcome = try #require(finishes { try store.add(Fixture.item(group, "b")) })
            #expect(throws: StorageError.self) { try outcome.get() }
            if case .failure(let error) = outcome {
                #expect("\(error)".contains(lock.path) && "\(error)".contains("remove"), "\(error)")
            }
            if let target { #expect(try Data(contentsOf: target) == before) }
        }
    }

    @Test("items the index names but the keyring lost (their shard gone) are reported, naming the group and count")
    func lostShardIsReported() throws {
        try TestKeyring.withSharedAccess {
            let writer = try Self.store()
            let (group, items) = try Self.filledGroup("lostshard", 3, writer)
            // Shard 0 (two items) disappears behind the store's back, as when its file is lost.
            let shard0 = try #require(try writer.collectionPath(forGroup: group))
            try writer.perform("delete shard") { service in try writer.client.deleteCollection(service, path: shard0) }
            #expect(try Self.keyringCount(group) == 1)

            let log = WarningLog()
            let reader = try Self.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[2]])
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[2]])
            #expect(log.messages.count == 1, "\(log.messages)")
            let message = log.messages.first ?? ""
            #expect(message.contains(group) && message.contains("2 items"), "\(message)")
        }
    }

    @Test("a shard whose keyring file was replaced with garbage is reported after a restart, not listed as empty")
    func garbageKeyringFileIsReported() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let writer = try Self.store()
            let (group, items) = try Self.filledGroup("garbage", 3, writer)
            let file = keyring.stateDirectory.appendingPathComponent("data/keyrings")
                .appendingPathComponent(CollectionDirectory.label(for: group) + ".keyring")
            #expect(FileManager.default.fileExists(atPath: file.path))
            let pid = try #require(keyring.status().pid)
            kill(pid, SIGKILL)
            #expect(ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10))
            try Data(repeating: 0x5A, count: 300).write(to: file)
            _ = try keyring.start()

            let log = WarningLog()
            let reader = try Self.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[2]])
            #expect(log.messages.count == 1, "\(log.messages)")
            let message = log.messages.first ?? ""
            #expect(message.contains(group) && message.contains("2 items"), "\(message)")
        }
    }

    @Test("a delete whose index record cannot be written still succeeds; the next reader repairs the index")
    func deleteSurvivesIndexFailure() throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store()
            let (group, items) = try Self.filledGroup("delfail", 2, store)
            store.indexes.failNextAppend(with: .backend(domain: "posix", code: Int(ENOSPC), message: "No space left on device"))
            #expect(try store.delete(matching: ItemQuery(groups: [group], account: "a0")) == 1)
            #expect(try Self.keyringCount(group) == 1)

            let reader = try Self.store()
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[1]])
            let index = try #require(try reader.indexes.current(group))
            #expect(index.shards.count == 1)
            try reader.add(Fixture.item(group, "a0"))
        }
    }
}

/// Runs `body` on a thread of its own and waits at most `seconds` for it: nil when it did not
/// finish (a hang), else its outcome. A hung thread is left behind; the test has failed then.
func finishes<T: Sendable>(within seconds: Double = 30, _ body: @escaping @Sendable () throws -> T) -> Result<T, any Error>? {
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Result<T, any Error>?>(nil)
    Thread.detachNewThread {
        let result = Result { try body() }
        outcome.withLock { $0 = result }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return outcome.withLock { $0 }
}
