import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// The per-group layout's shards: bounded collections, the shard index beside the group lock,
/// and what happens when the index is missing, stale, or the daemon restarts.
@Suite("Shards of a group")
struct ShardTests {
    /// A store on the shared keyring whose groups spread over shards of `capacity` items,
    /// unguarded (its internals are under test): each test runs inside
    /// ``TestKeyring/withSharedAccess(_:)`` so no other test restarts the daemon meanwhile.
    /// (Without it, one CI run lost the daemon mid-test and another miscounted a shard.)
    static func store(capacity: Int = 2) throws -> SecretServiceStore {
        try TestKeyring.unguardedStore(.collectionPerGroup) { $0.shardCapacity = capacity }
    }

    /// How many items each of the group's shard collections holds, by searching each one.
    /// Each is unlocked first as the store's own searches do: after a daemon restart (another
    /// test's, before this one took shared access) gnome-keyring's search of a collection
    /// locked since it was loaded finds nothing.
    static func shardSizes(_ store: SecretServiceStore, _ group: String) throws -> [Int] {
        try store.collectionPaths(forGroup: group).map { path in
            try store.perform("count") { service in
                try store.ensureUnlocked([path], service)
                return try store.client.searchPaths(service, collection: path, attributes: [ItemAttributes.group: group]).count
            }
        }
    }

    @Test("a group spreads over shards of at most the capacity; a wipe drops every shard")
    func shardsAreBounded() throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store()
            let group = TestKeyring.uniqueGroup("shards")
            let items = (0..<7).map { Fixture.item(group, "a\($0)", at: Double($0)) }
            for item in items { try store.add(item) }

            #expect(try Self.shardSizes(store, group) == [2, 2, 2, 1])
            #expect(try store.items(matching: Fixture.all(group), limit: nil) == items)
            for item in items {
                #expect(try store.items(matching: ItemQuery(groups: [group], account: item.account, service: item.service), limit: nil) == [item])
            }
            // Items never move: an update rewrites its own shard, and a new item fills the room a
            // delete left in the oldest shard before the newest, so no shard is left half empty.
            #expect(try store.update(matching: ItemQuery(groups: [group], account: "a0"), with: ItemChange(data: Data("x".utf8)), at: Date()) == 1)
            #expect(try store.delete(matching: ItemQuery(groups: [group], account: "a1")) == 1)
            try store.add(Fixture.item(group, "a7", at: 7))
            var sizes = try Self.shardSizes(store, group)
            let index = try store.indexes.current(group)
            #expect(sizes == [2, 2, 2, 1], "index: \(String(describing: index))")
            try store.add(Fixture.item(group, "a8", at: 8))
            try store.add(Fixture.item(group, "a9", at: 9))
            sizes = try Self.shardSizes(store, group)
            #expect(sizes == [2, 2, 2, 2, 1])
            // Insertion order is the items' own, not their shards': a7 went to shard 0 but lists after a6.
            #expect(try store.items(matching: Fixture.all(group), limit: nil).map(\.account) == ["a0", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"])
            #expect(throws: StorageError.duplicateItem(PrimaryKey(group: group, account: "a3", service: "service"))) {
                try store.add(Fixture.item(group, "a3"))
            }

            #expect(try store.delete(matching: Fixture.all(group)) == 9)
            #expect(try store.collectionPaths(forGroup: group).isEmpty)
            #expect(try store.items(matching: Fixture.all(group), limit: nil).isEmpty)
            let again = Fixture.item(group, "back")
            try store.add(again)
            #expect(try Self.shardSizes(store, group) == [1])
            #expect(try store.items(matching: Fixture.all(group), limit: nil) == [again])
        }
    }

    @Test("an item that outgrows the threshold in a shared shard moves to a shard of its own, which new items never join")
    func bigItemMovesToAShardOfItsOwn() throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store(capacity: 4)
            let group = TestKeyring.uniqueGroup("alone")
            let items = (0..<3).map { Fixture.item(group, "a\($0)", at: Double($0)) }
            for item in items { try store.add(item) }
            #expect(try Self.shardSizes(store, group) == [3])
            let big = Data(repeating: 0x5A, count: SecretServiceStore.aloneThreshold + 1)
            #expect(try store.update(matching: ItemQuery(groups: [group], account: "a1"), with: ItemChange(data: big), at: Date()) == 1)
            let alone = ShardIndex.ShardID(.untilUnlocked, ShardIndex.aloneBase)
            #expect(try store.indexes.current(group)?.shards[ShardIndex.Key(items[1].primaryKey)] == alone)
            #expect(try Self.shardSizes(store, group) == [2, 1])
            // It keeps its place in the group's order, and is found and changed where it is now.
            #expect(try store.items(matching: Fixture.all(group), limit: nil).map(\.account) == ["a0", "a1", "a2"])
            #expect(try Self.store(capacity: 4).items(matching: ItemQuery(groups: [group], account: "a1"), limit: nil).first?.data == big)
            var bigger = big
            bigger.append(1)
            #expect(try store.update(matching: ItemQuery(groups: [group], account: "a1"), with: ItemChange(data: bigger), at: Date()) == 1)
            #expect(try store.indexes.current(group)?.shards[ShardIndex.Key(items[1].primaryKey)] == alone)
            // New items fill the shared shard and open another, never the item's own.
            for index in 3..<7 { try store.add(Fixture.item(group, "a\(index)", at: Double(index))) }
            #expect(try Self.shardSizes(store, group).sorted() == [1, 2, 4])
            #expect(try store.items(matching: ItemQuery(groups: [group], account: "a1"), limit: nil).first?.data == bigger)
            #expect(try store.delete(matching: Fixture.all(group)) == 7)
        }
    }

    @Test("a group without its shard index is read whole, and its first writer rebuilds the index")
    func missingIndexIsRebuilt() throws {
        try TestKeyring.withSharedAccess {
            let writer = try Self.store()
            let group = TestKeyring.uniqueGroup("noindex")
            let items = (0..<5).map { Fixture.item(group, "a\($0)", at: Double($0)) }
            for item in items { try writer.add(item) }
            let indexFile = writer.indexes.file(for: group)
            try FileManager.default.removeItem(at: indexFile)

            // A store that never saw the index: readers search every shard.
            let reader = try Self.store()
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)
            #expect(try reader.items(matching: ItemQuery(groups: [group], account: "a3"), limit: nil) == [items[3]])
            // A writer rebuilds the index first, so a taken key is still a duplicate.
            #expect(throws: StorageError.duplicateItem(PrimaryKey(group: group, account: "a4", service: "service"))) {
                try reader.add(Fixture.item(group, "a4"))
            }
            #expect(FileManager.default.fileExists(atPath: indexFile.path))
            let index = try #require(try reader.indexes.current(group))
            #expect(index.shards.count == 5)
            #expect(index.candidateShards(account: "a4", service: "service") == [ShardIndex.ShardID(.untilUnlocked, 2)])
        }
    }

    @Test("a record of an item that was never written (a crash after the record) changes nothing")
    func staleRecordIsHarmless() throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store()
            let group = TestKeyring.uniqueGroup("stale")
            try store.add(Fixture.item(group, "a"))
            try store.indexes.append([.place(ShardIndex.Key(account: "ghost", service: "service"), shard: ShardIndex.ShardID(.untilUnlocked, 0))], to: group)
            // A torn last line, as a crash mid-append leaves it.
            let handle = try FileHandle(forWritingTo: store.indexes.file(for: group))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("+ 0 12".utf8))
            try handle.close()

            #expect(try store.items(matching: ItemQuery(groups: [group], account: "ghost"), limit: nil).isEmpty)
            let ghost = Fixture.item(group, "ghost", at: 1)
            try store.add(ghost)
            #expect(try Self.store().items(matching: ItemQuery(groups: [group], account: "ghost"), limit: nil) == [ghost])
            #expect(try store.items(matching: Fixture.all(group), limit: nil).map(\.account) == ["a", "ghost"])
        }
    }

    @Test("after a daemon restart every locked shard is unlocked in one go, and a lock covers every shard")
    func restartUnlocksEveryShard() throws {
        try TestKeyring.withExclusiveAccess { keyring in
            let store = try Self.store()
            let group = TestKeyring.uniqueGroup("restart")
            // 11 shards: more than one search per shard would make (a service-wide search).
            let items = (0..<22).map { Fixture.item(group, "a\($0)", at: Double($0)) }
            for item in items { try store.add(item) }
            #expect(try store.collectionPaths(forGroup: group).count == 11)

            try store.lock(groups: [group])
            #expect(throws: StorageError.self) { try store.items(matching: Fixture.all(group), limit: nil) }

            let before = try #require(keyring.status().pid)
            kill(before, SIGKILL)
            #expect(ProcessTable.waitForExit(before, named: "gnome-keyring-daemon", seconds: 10))
            _ = try keyring.start()
            // A store meeting the shards for the first time in this daemon run unlocks them all.
            let fresh = try Self.store()
            let seen = try fresh.items(matching: Fixture.all(group), limit: nil)
            #expect(seen == items, "\(seen.count) items: \(seen.map(\.account))")
            #expect(try fresh.items(matching: ItemQuery(groups: [group], account: "a21"), limit: nil) == [items[21]])
            #expect(try fresh.delete(matching: Fixture.all(group)) == 22)
        }
    }
}
