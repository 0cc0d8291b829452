import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// Keys beyond account and service (issue 22): a local and a synchronizable item, or internet
/// passwords differing in a port, share the index's account and service hashes; each has a
/// record of its own (a fifth field), so the index agrees with the keyring and is never rebuilt
/// for them, and a lost record still never lets a key be taken twice.
@Suite("Shard index: synchronizable twins and internet passwords")
struct IndexVariantTests {
    func twins(_ group: String) -> [StoredItem] {
        var synced = Fixture.item(group, "alice", "rt", at: 1)
        synced.synchronizable = true
        var web = Fixture.item(group, "alice", "", at: 2)
        web.internet = InternetAttributes(server: "example.com", port: 443)
        var webAlt = web
        webAlt.internet?.port = 8443
        webAlt.creationDate = webAlt.creationDate.addingTimeInterval(1)
        webAlt.modificationDate = webAlt.creationDate
        return [Fixture.item(group, "alice", "rt", at: 0), synced, web, webAlt]
    }

    @Test("records round-trip with and without the variant field; a variant of 0 is no record")
    func recordsRoundTrip() {
        var key = PrimaryKey(group: "G", account: "a", service: "s")
        let local = ShardIndex.Key(key)
        #expect(local.variant == 0)
        key.synchronizable = true
        let synced = ShardIndex.Key(key)
        #expect(synced.variant != 0)
        #expect(synced.pair == local)
        for record in [ShardIndex.Record.place(local, shard: ShardIndex.ShardID(.untilFirstUnlock, 2)), .place(synced, shard: ShardIndex.ShardID(.untilUnlocked, 3)), .remove(synced), .remove(local)] {
            #expect(ShardIndex.Record(line: Substring(record.line.dropLast())) == record)
        }
        #expect(ShardIndex.Record(line: "+ 0 0000000000000001 0000000000000002 0000000000000000") == nil)
        var index = ShardIndex()
        index.place(local, in: ShardIndex.ShardID(.untilUnlocked, 0))
        index.place(synced, in: ShardIndex.ShardID(.untilUnlocked, 1))
        #expect(index.candidateShards(account: "a", service: "s") == [ShardIndex.ShardID(.untilUnlocked, 0), ShardIndex.ShardID(.untilUnlocked, 1)])
        index.remove(local)
        #expect(index.candidateShards(account: "a", service: "s") == [ShardIndex.ShardID(.untilUnlocked, 1)])
    }

    @Test("twins across shards agree with the keyring: no rebuild, every key stays taken")
    func twinsAgreeWithTheKeyring() throws {
        try TestKeyring.withSharedAccess {
            let group = TestKeyring.uniqueGroup("twins")
            let items = twins(group)
            let writer = try IndexTrustTests.store()
            for item in items { try writer.add(item) }
            let log = WarningLog()
            let fresh = try IndexTrustTests.store(log)
            #expect(try fresh.items(matching: Fixture.all(group), limit: nil) == items)
            for item in items {
                #expect(throws: StorageError.duplicateItem(item.primaryKey)) { try fresh.add(item) }
            }
            #expect(log.messages.isEmpty, "\(log.messages)")
            // One twin's record lost: its key is still taken, and the index is rebuilt once.
            try IndexTrustTests.editRecords(fresh, group) { $0.filter { $0.split(separator: " ").count == 4 } }
            let repairLog = WarningLog()
            let repairer = try IndexTrustTests.store(repairLog)
            #expect(throws: StorageError.duplicateItem(items[1].primaryKey)) { try repairer.add(items[1]) }
            #expect(try repairer.items(matching: Fixture.all(group), limit: nil) == items)
            #expect(repairLog.messages.count == 1, "\(repairLog.messages)")
            _ = try fresh.delete(matching: Fixture.all(group))
        }
    }

    @Test("a synchronizable item indexed before keys had variants is found by its whole key, and its key stays taken")
    func synchronizableItemsOfEarlierIndexes() throws {
        try TestKeyring.withSharedAccess {
            let group = TestKeyring.uniqueGroup("legacy")
            var synced = Fixture.item(group, "alice", "rt", data: Data("synced".utf8))
            synced.synchronizable = true
            let writer = try IndexTrustTests.store()
            try writer.add(synced)
            // As an earlier version indexed it: account and service only.
            try IndexTrustTests.editRecords(writer, group) { $0.map { $0.split(separator: " ").prefix(4).joined(separator: " ") } }
            let store = try IndexTrustTests.store()
            var exact = ItemQuery(groups: [group], account: "alice", service: "rt")
            exact.filters.synchronizable = true
            #expect(exact.exactKey(in: group) == synced.primaryKey)
            #expect(try store.items(matching: exact, limit: nil) == [synced])
            #expect(throws: StorageError.duplicateItem(synced.primaryKey)) { try store.add(synced) }
            let local = Fixture.item(group, "alice", "rt", at: 1, data: Data("local".utf8))
            try store.add(local)
            // The same store, trusting its own records: deleting the local twin hides nothing.
            #expect(try store.delete(matching: ItemQuery(groups: [group], account: "alice", filters: .init(synchronizable: false))) == 1)
            #expect(try store.items(matching: Fixture.all(group), limit: nil) == [synced])
            try store.add(local)
            let listed = try IndexTrustTests.store().items(matching: Fixture.all(group), limit: nil)
            #expect(listed == [synced, local], "\(listed.map { "\($0.primaryKey) \($0.creationDate)" })")
            _ = try store.delete(matching: Fixture.all(group))
        }
    }
}
