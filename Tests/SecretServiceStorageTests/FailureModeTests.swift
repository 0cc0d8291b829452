import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Synchronization
import Testing

/// Locked collections, hung and missing daemons, restarts. Tests that stop or freeze the shared
/// daemon hold exclusive access, so other tests' stores wait instead of failing.
@Suite("Secret Service failure modes")
struct FailureModeTests {
    @Test("a locked collection is .locked, never an empty result")
    func lockedCollection() throws {
        // Exclusive: a daemon restart by another test would relock and reset what we check.
        try TestKeyring.withExclusiveAccess { _ in
            let store = try TestKeyring.unguardedStore(.collectionPerGroup)
            let group = TestKeyring.uniqueGroup("locked")
            let item = Fixture.item(group, "a")
            try store.add(item)
            try store.lock(groups: [group])
            let locked = StorageError.locked(collection: "group-\(group)")

            #expect(throws: locked) { try store.items(matching: Fixture.all(group), limit: nil) }
            #expect(throws: locked) { try store.items(matching: ItemQuery(groups: [group], account: "a"), limit: nil) }
            // The shard index knows no item of the account is there: not found, as the in-memory
            // store answers, with no call to the locked collection.
            #expect(try store.items(matching: ItemQuery(groups: [group], account: "nobody"), limit: nil).isEmpty)
            #expect(try store.update(matching: ItemQuery(groups: [group], account: "nobody"), with: ItemChange(label: "x"), at: Date()) == 0)
            #expect(throws: locked) { try store.add(Fixture.item(group, "b")) }
            #expect(throws: locked) { try store.update(matching: Fixture.all(group), with: ItemChange(label: "x"), at: Date()) }
            #expect(throws: locked) { try store.delete(matching: ItemQuery(groups: [group], account: "a")) }
            // Reloaded from its file while locked (gnome-keyring's file tracker): still .locked.
            try Self.reloadOnNextSearch(group, store)
            #expect(throws: locked) { try store.items(matching: Fixture.all(group), limit: nil) }

            // A store meeting the collection for the first time in this daemon run unlocks it
            // with the master password (what a restarted daemon needs).
            let fresh = try TestKeyring.unguardedStore(.collectionPerGroup)
            #expect(try fresh.items(matching: Fixture.all(group), limit: nil) == [item])
        }
    }

    /// gnome-keyring reloads a keyring file whose mtime moved (its file tracker, at the next
    /// search; its own save a second ago looks the same), and a collection reloaded while locked
    /// has only its hashed attributes. Backdating the group's files forces that reload.
    static func reloadOnNextSearch(_ group: String, _ store: SecretServiceStore) throws {
        let directory = try #require(store.configuration.keyringFiles)
        let files = try #require(CensusStamp.keyringFiles(of: group, in: directory)?.marks.keys)
        #expect(!files.isEmpty)
        let past = Date().addingTimeInterval(-3600)
        for name in files {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: directory.appendingPathComponent(name).path)
        }
    }

    /// GetSecrets leaves out the secrets of locked items without a word; when the collection is
    /// unlocked again before the store asks whether it is locked (another process unlocks it on
    /// its own read, as every store does once the device allows), those items are still there
    /// and must be read, never answered as deleted.
    @Test("items whose secrets were left out while locked, then unlocked by another store, are read, not dropped")
    func secretsLeftOutThenUnlockedElsewhere() throws {
        try TestKeyring.withExclusiveAccess { _ in
            let reader = try TestKeyring.unguardedStore(.collectionPerGroup) { $0.secretsBatch = 2 }
            let group = TestKeyring.uniqueGroup("leftout")
            let items = (0..<4).map { Fixture.item(group, "a\($0)", at: Double($0)) }
            for item in items { try reader.add(item) }
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)

            try reader.lock(groups: [group])
            // After the first batch came back without secrets, another store unlocks the
            // collection (it meets it for the first time in this daemon run).
            let unlocked = Mutex(false)
            let observer = ReadProgress { _, _ in
                let first = unlocked.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard first else { return }
                _ = try? TestKeyring.unguardedStore(.collectionPerGroup).items(matching: Fixture.all(group), limit: nil)
            }
            let read = try ReadProgress.$observer.withValue(observer) { try reader.items(matching: Fixture.all(group), limit: nil) }
            #expect(unlocked.withLock { $0 })
            #expect(read == items)
        }
    }

    @Test("a locked default collection is .locked for the default layout")
    func lockedDefaultCollection() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let store = try TestKeyring.unguardedStore(.defaultCollection)
            let group = TestKeyring.uniqueGroup("lockeddefault")
            try store.add(Fixture.item(group, "a"))
            try store.lock(groups: [group])
            defer {
                // Restore the login collection for everyone else: --unlock happens at daemon start.
                if let pid = keyring.status().pid {
                    kill(pid, SIGTERM)
                    _ = ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10)
                }
                _ = try? keyring.start()
            }
            #expect(throws: StorageError.locked(collection: "login")) {
                try store.items(matching: Fixture.all(group), limit: nil)
            }
            #expect(throws: StorageError.locked(collection: "login")) {
                try store.items(matching: ItemQuery(groups: [group], account: "nobody"), limit: nil)
            }
        }
    }

    @Test("a hung daemon is .timedOut within the configured limit", .timeLimit(.minutes(1)))
    func timeout() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let store = try TestKeyring.unguardedStore(.collectionPerGroup, timeout: 0.3)
            let group = TestKeyring.uniqueGroup("hung")
            let item = Fixture.item(group, "a")
            try store.add(item)
            let pid = try #require(keyring.status().pid)
            kill(pid, SIGSTOP)
            let started = Date()
            let error = #expect(throws: StorageError.self) { try store.items(matching: Fixture.all(group), limit: nil) }
            let elapsed = Date().timeIntervalSince(started)
            kill(pid, SIGCONT)
            guard case .timedOut(_, let seconds) = error else {
                Issue.record("expected .timedOut, got \(String(describing: error))")
                return
            }
            #expect(seconds == 0.3)
            #expect(elapsed < 2)
            // The daemon answers again once resumed.
            #expect(try store.items(matching: Fixture.all(group), limit: nil) == [item])
        }
    }

    @Test("no Secret Service on the bus: .unavailable with what to run, unless the store may restart the private keyring's daemon")
    func unavailable() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let restarting = try TestKeyring.unguardedStore(.collectionPerGroup)
            var configuration = try keyring.storeConfiguration(collectionPerGroup: true)
            configuration.restartService = nil
            let plain = try SecretServiceStore(configuration: configuration)
            let group = TestKeyring.uniqueGroup("gone")
            let item = Fixture.item(group, "a")
            try restarting.add(item)
            let pid = try #require(keyring.status().pid)
            kill(pid, SIGTERM)
            #expect(ProcessTable.waitForExit(pid, named: "gnome-keyring-daemon", seconds: 10))
            defer { _ = try? keyring.start() }

            let error = #expect(throws: StorageError.self) { try plain.items(matching: Fixture.all(group), limit: nil) }
            guard case .unavailable(let message) = error else {
                Issue.record("expected .unavailable, got \(String(describing: error))")
                return
            }
            #expect(message.contains("start one (a private keyring)"))
            #expect(message.contains("gnome-keyring"))

            // The private keyring's own store starts the daemon again, reconnects once and reads on.
            let before = restarting.reconnects
            #expect(try restarting.items(matching: Fixture.all(group), limit: nil) == [item])
            #expect(restarting.reconnects == before + 1)
            let restarted = try #require(keyring.status().pid)
            #expect(restarted != pid)
            // And the plain store, now that a daemon runs again, reconnects too.
            #expect(try plain.items(matching: Fixture.all(group), limit: nil) == [item])
        }
    }

    @Test("after kill -9 of the daemon and a restart, items are intact in both layouts")
    func restartAfterKill() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let perGroup = try TestKeyring.unguardedStore(.collectionPerGroup)
            let plain = try TestKeyring.unguardedStore(.defaultCollection)
            let (g1, g2) = (TestKeyring.uniqueGroup("kill1"), TestKeyring.uniqueGroup("kill2"))
            let perGroupItems = (0..<3).map { Fixture.item(g1, "a\($0)", at: Double($0)) }
            let plainItems = (0..<3).map { Fixture.item(g2, "b\($0)", at: Double($0)) }
            for item in perGroupItems { try perGroup.add(item) }
            for item in plainItems { try plain.add(item) }

            let before = try #require(keyring.status().pid)
            kill(before, SIGKILL)
            #expect(ProcessTable.waitForExit(before, named: "gnome-keyring-daemon", seconds: 10))
            let after = try keyring.start()
            #expect(after.running && after.pid != before)

            // The same stores: stale session, per-group collection locked again after the restart.
            #expect(try perGroup.items(matching: Fixture.all(g1), limit: nil) == perGroupItems)
            #expect(try plain.items(matching: Fixture.all(g2), limit: nil) == plainItems)
            // New stores too, and writes work.
            let freshPerGroup = try TestKeyring.unguardedStore(.collectionPerGroup)
            #expect(try freshPerGroup.items(matching: Fixture.all(g1), limit: nil) == perGroupItems)
            try freshPerGroup.add(Fixture.item(g1, "new", at: 10))
            try plain.add(Fixture.item(g2, "new", at: 10))
            #expect(try TestKeyring.unguardedStore(.defaultCollection).items(matching: Fixture.all(g2), limit: nil).count == 4)
            #expect(try perGroup.delete(matching: Fixture.all(g1)) == 4)
        }
    }

    /// The harness's own guard: one hazard test once opened an unguarded store outside any
    /// access, and a daemon restart by a test here hit its operations (CI: errSecItemNotFound
    /// and NoReply in `everyHazardComparesWithoutPrintingSecrets`).
    @Test("the shared keyring unguarded, outside shared or exclusive access, is refused")
    func unguardedNeedsAccess() throws {
        #expect(throws: TestKeyring.MisuseError.unguardedOutsideAccess) { try TestKeyring.unguardedStore() }
        #expect(throws: TestKeyring.MisuseError.unguardedOutsideAccess) { try TestKeyring.busAddress() }
        let group = TestKeyring.uniqueGroup("access")
        try TestKeyring.withSharedAccess {
            try TestKeyring.unguardedStore().add(Fixture.item(group, "a"))
            #expect(try TestKeyring.busAddress().hasPrefix("unix:"))
        }
        #expect(try TestKeyring.store().delete(matching: Fixture.all(group)) == 1)
    }

    @Test("a store for a second bus is refused: a process talks to one session bus")
    func oneBusPerProcess() throws {
        let bus = try TestKeyring.withSharedAccess { try TestKeyring.busAddress() }
        let error = #expect(throws: StorageError.self) {
            try SecretServiceStore(configuration: .init(busAddress: "unix:path=/nonexistent/shared-keychain/bus"))
        }
        guard case .unavailable(let message) = error else {
            Issue.record("expected .unavailable, got \(String(describing: error))")
            return
        }
        #expect(message.contains("one session bus per process"))
        // The bus in use is fine.
        _ = try SecretServiceStore(configuration: .init(busAddress: bus))
    }
}
