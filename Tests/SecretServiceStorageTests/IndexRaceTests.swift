import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// A reader's search that misses the shard the index names is not proof the index is wrong:
/// writers record an item before they create it, and a reader's index may predate a delete and
/// add of the key. Found where the index (as it is now) says, the index is kept. Before, each
/// such miss rebuilt the group's index: under 8 app processes signing in to a group filled by
/// `cache import` (MSAL's shared metadata items created during the run), again and again.
@Suite("A reader racing a writer does not rebuild a right index")
struct IndexRaceTests {
    /// The group's index file's header: a rebuild writes a new one.
    static func header(_ store: SecretServiceStore, _ group: String) throws -> String {
        try String(contentsOf: store.indexes.file(for: group), encoding: .utf8).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// What a reader's key search does after its search of `searched` (shard collections of
    /// `group`) found nothing: every shard searched, the index judged.
    static func missedSearch(_ reader: SecretServiceStore, _ key: PrimaryKey, searched: [String]) throws -> Int {
        try reader.perform("search") { service in
            try reader.searchMisplaced(
                ItemAttributes.matching(key), group: key.group, writing: false, foreign: [], searched: searched, service
            ).unlocked.count
        }
    }

    @Test("an item the writer created just after the reader searched its named shard is found there, the index kept")
    func itemCreatedAfterTheSearch() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try IndexTrustTests.filledGroup("race-created", 4, try IndexTrustTests.store())
            let log = WarningLog()
            let reader = try IndexTrustTests.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)
            let before = try Self.header(reader, group)
            // a3's shard (1), as named by the index, searched before its item existed.
            let named = try #require(try reader.collectionPaths(forGroup: group).last)
            let index = try #require(try reader.indexes.current(group))
            #expect(index.shards[ShardIndex.Key(items[3].primaryKey)] == ShardIndex.ShardID(.untilUnlocked, 1))

            #expect(try Self.missedSearch(reader, items[3].primaryKey, searched: [named]) == 1)
            #expect(log.messages.isEmpty, "\(log.messages)")
            #expect(try Self.header(reader, group) == before)
        }
    }

    @Test("a reader whose index predates a delete and add of the key elsewhere finds it, the index kept")
    func keyAddedAgainElsewhere() throws {
        try TestKeyring.withSharedAccess {
            let writer = try IndexTrustTests.store()
            let (group, items) = try IndexTrustTests.filledGroup("race-moved", 4, writer)
            let log = WarningLog()
            let reader = try IndexTrustTests.store(log)
            #expect(try reader.items(matching: Fixture.all(group), limit: nil) == items)
            let shards = try reader.collectionPaths(forGroup: group)
            // a0 leaves shard 0, another item takes its room there, and a0 comes back in a new
            // shard (2): the file says so.
            #expect(try writer.delete(matching: ItemQuery(groups: [group], account: "a0")) == 1)
            try writer.add(Fixture.item(group, "b", at: 8))
            try writer.add(Fixture.item(group, "a0", at: 9))
            #expect(try writer.indexes.current(group)?.shards[ShardIndex.Key(items[0].primaryKey)] == ShardIndex.ShardID(.untilUnlocked, 2))
            let before = try Self.header(reader, group)

            // The reader's plan, made before the delete, named shard 0.
            #expect(try Self.missedSearch(reader, items[0].primaryKey, searched: [try #require(shards.first)]) == 1)
            #expect(log.messages.isEmpty, "\(log.messages)")
            #expect(try Self.header(reader, group) == before)
        }
    }

    @Test("items added by one store are found by another's exact-key lookups in the shard the index names, with no rebuild")
    func secondStoreTrustsTheIndex() throws {
        try TestKeyring.withSharedAccess {
            let (group, items) = try IndexTrustTests.filledGroup("race-second", 12, try IndexTrustTests.store(capacity: 4))
            let log = WarningLog()
            let reader = try IndexTrustTests.store(log, capacity: 4)
            let before = try Self.header(reader, group)
            for item in items {
                let query = ItemQuery(groups: [group], account: item.account, service: item.service)
                let found = try reader.perform("search") { service in
                    try reader.searchShards(
                        ItemAttributes.matching(query, in: group), group: group, writing: false, exactKey: query.exactKey(in: group), service)
                }
                let index = try #require(try reader.indexes.current(group))
                let shard = try #require(index.shards[ShardIndex.Key(item.primaryKey)])
                #expect(found.found.unlocked.count == 1)
                #expect(found.found.unlocked.map { reader.shardID(ofItem: $0, group: group) } == [shard])
            }
            #expect(log.messages.isEmpty, "\(log.messages)")
            #expect(try Self.header(reader, group) == before)
        }
    }
}
