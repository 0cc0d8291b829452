import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Synchronization
import Testing

/// A new store (every CLI command) trusts the last census of a group's shard index while the
/// group's keyring files and index are as that census saw them (issue 32): a one-item call then
/// costs what it costs in an empty group. Anything else that moved is counted again, and an
/// index the keyring does not bear out is still rebuilt and reported.
@Suite("A kept census stands while the group's keyring files and index are unchanged")
struct CensusStampTests {
    typealias Trust = IndexTrustTests

    @Test("a new store trusts the last census, and a writer's own changes renew it")
    func newStoreSkipsTheCensus() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Trust.filledGroup("stamp", 5, try Trust.store())
            let reader = try Trust.store()
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)
            #expect(reader.censusCount.load(ordering: .relaxed) == 0)

            let writer = try Trust.store()
            let late = Fixture.item(group, "late", at: 9)
            try writer.add(late)
            #expect(try writer.delete(matching: ItemQuery(groups: [group], account: "a0")) == 1)
            #expect(writer.censusCount.load(ordering: .relaxed) == 0)

            let next = try Trust.store()
            #expect(try next.items(matching: Fixture.all(group), limit: nil) == Array(items.dropFirst()) + [late])
            #expect(next.censusCount.load(ordering: .relaxed) == 0)
        }
    }

    @Test("an item deleted behind the stores' back voids the census: the next store counts, rebuilds and says so")
    func foreignDeleteIsCounted() throws {
        try TestKeyring.withSharedAccess {
            let writer = try Trust.store()
            let (group, items) = try Trust.filledGroup("stampstale", 3, writer)
            let attributes = ItemAttributes.matching(ItemQuery(groups: [group], account: "a1"), in: group)
            try writer.perform("delete behind the store's back") { service in
                let path = try #require(try writer.client.searchPaths(service, attributes: attributes).unlocked.first)
                try writer.client.deleteItem(service, path: path)
            }

            let log = WarningLog()
            let reader = try Trust.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[0], items[2]])
            #expect(reader.censusCount.load(ordering: .relaxed) >= 1)
            #expect(log.messages.count == 1, "\(log.messages)")
            #expect(log.messages.first?.contains(group) == true, "\(log.messages)")
        }
    }

    @Test("a record appended to the index by anything but a writer voids the census")
    func foreignRecordIsCounted() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Trust.filledGroup("stamprecord", 2, try Trust.store())
            let ghost = ShardIndex.Record.place(ShardIndex.Key(account: "ghost", service: "service"), shard: ShardIndex.ShardID(.untilUnlocked, 0))
            try Trust.editRecords(try Trust.store(), group) { $0 + [String(ghost.line.dropLast())] }

            let log = WarningLog()
            let reader = try Trust.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)
            #expect(reader.censusCount.load(ordering: .relaxed) >= 1)
            #expect(log.messages.count == 1, "\(log.messages)")
        }
    }

    @Test("a census that could not see the shards a locked device keeps shut confirms nothing a writer may stamp")
    func writerAfterPartialCensusLeavesTheStampStale() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Trust.filledGroup("stamppartial", 3, try Trust.store())
            // An item deleted behind the stores' back, from a shard of items usable only while unlocked.
            let owner = try Trust.store()
            let attributes = ItemAttributes.matching(ItemQuery(groups: [group], account: "a1"), in: group)
            try owner.perform("delete behind the store's back") { service in
                let path = try #require(try owner.client.searchPaths(service, attributes: attributes).unlocked.first)
                try owner.client.deleteItem(service, path: path)
            }

            // A locked device: that shard goes uncounted, and a writer adds to another shard.
            let locked = try TestKeyring.unguardedStore(.collectionPerGroup) { configuration in
                configuration.shardCapacity = 2
                configuration.deviceLock = { DeviceLockState(locked: true, unlockedSinceBoot: true) }
            }
            var late = Fixture.item(group, "late", at: 9)
            late.accessibility = .afterFirstUnlock
            try locked.add(late)

            // Unlocked again: the next store must count, and says the index was wrong.
            let log = WarningLog()
            let reader = try Trust.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == [items[0], items[2], late])
            #expect(reader.censusCount.load(ordering: .relaxed) >= 1)
            #expect(log.messages.count == 1, "\(log.messages)")
        }
    }

    @Test("a big group is read in GetSecrets batches, each told to the read's observer, and reads whole")
    func readInBatches() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try Trust.filledGroup("batches", 7, try Trust.store())
            let batched = try TestKeyring.unguardedStore(.collectionPerGroup) { $0.secretsBatch = 3 }
            let seen = Mutex<[[Int]]>([])
            let observer = ReadProgress { done, total in seen.withLock { $0.append([done, total]) } }
            let read = try ReadProgress.$observer.withValue(observer) {
                try batched.items(matching: Fixture.all(group), limit: nil)
            }
            #expect(read == items)
            #expect(seen.withLock { $0 } == [[3, 7], [6, 7], [7, 7]])
            // Outside the binding nobody is told.
            #expect(try batched.items(matching: Fixture.all(group), limit: nil) == items)
            #expect(seen.withLock { $0 }.count == 3)
        }
    }

    @Test("a stamp reads back as written; a torn or foreign file is no stamp")
    func stampText() {
        let stamp = CensusStamp(
            epoch: ":1.42", indexHeader: ShardIndexFiles.headerPrefix + "X", indexLength: 120,
            files: ["group-G.keyring": .init(inode: 7, size: 300, modified: 1, changed: 2), "group-G~1.keyring": .init(inode: 8, size: 9, modified: 3, changed: 4)])
        #expect(CensusStamp(text: Substring(stamp.text)) == stamp)
        #expect(CensusStamp(text: Substring(stamp.text.dropLast(4))) == nil)
        #expect(CensusStamp(text: "shared-keychain shard index 1 X\n") == nil)
    }
}
