import Foundation
import KeychainStorage
import KeychainTestSupport
@testable import SecretServiceStorage
import Testing

/// What a store keeps of the items it read or wrote (``RecentItems``) never hides another
/// store's change: two stores on one keyring, as two processes, each seeing the other's every
/// write, delete and re-add at once, and what a store kept serving it only while nothing changed.
@Suite("Items a store keeps while its group's version stands")
struct RecentItemsTests {
    static func store() throws -> SecretServiceStore {
        try TestKeyring.unguardedStore(.collectionPerGroup) { $0.shardCapacity = 4 }
    }

    static func read(_ store: SecretServiceStore, _ group: String) throws -> Data? {
        try store.items(matching: ItemQuery(groups: [group], account: "x", service: "service"), limit: nil).first?.data
    }

    @Test("another store's update, delete and re-add are seen by the next read, and its updates build on them")
    func anotherStoresChangesAreSeenAtOnce() throws {
        try TestKeyring.withSharedAccess {
            let first = try Self.store()
            let second = try Self.store()
            let group = TestKeyring.uniqueGroup("recent")
            defer { _ = try? first.delete(matching: Fixture.all(group)) }
            try first.add(Fixture.item(group, "x", data: Data("one".utf8)))
            #expect(try Self.read(first, group) == Data("one".utf8))
            #expect(try Self.read(first, group) == Data("one".utf8))
            let kept = try #require(first.locks.version(of: group))

            #expect(try second.update(matching: ItemQuery(groups: [group], account: "x"), with: ItemChange(data: Data("two".utf8)), at: Date()) == 1)
            #expect(first.locks.version(of: group) != kept)
            #expect(try Self.read(first, group) == Data("two".utf8))

            #expect(try second.delete(matching: ItemQuery(groups: [group], account: "x")) == 1)
            #expect(try Self.read(first, group) == nil)

            try second.add(Fixture.item(group, "x", data: Data("three".utf8)))
            #expect(try Self.read(first, group) == Data("three".utf8))

            // An update under the first store's lock starts from the second's version of the item.
            let version = try #require(try second.items(matching: ItemQuery(groups: [group], account: "x"), limit: nil).first?.version)
            #expect(try second.update(matching: ItemQuery(groups: [group], account: "x"), with: ItemChange(data: Data("four".utf8)), at: Date()) == 1)
            #expect(throws: StorageError.self) {
                try first.update(matching: ItemQuery(groups: [group], account: "x"), with: ItemChange(data: Data("five".utf8), ifVersion: version), at: Date())
            }
            #expect(try first.update(matching: ItemQuery(groups: [group], account: "x"), with: ItemChange(data: Data("five".utf8), ifVersion: version + 1), at: Date()) == 1)
            #expect(try Self.read(second, group) == Data("five".utf8))
        }
    }

    @Test("a hold moves the group's version: odd while a holder may change it, even and new after")
    func holdsMoveTheVersion() throws {
        try TestKeyring.withSharedAccess {
            let store = try Self.store()
            let group = TestKeyring.uniqueGroup("version")
            defer { _ = try? store.delete(matching: Fixture.all(group)) }
            let before = try #require(store.locks.version(of: group))
            #expect(before % 2 == 0)
            let during = try store.holdingLocks([group]) { () throws(StorageError) -> UInt32? in store.locks.version(of: group) }
            #expect(during.map { $0 % 2 } == 1)
            let after = try #require(store.locks.version(of: group))
            #expect(after % 2 == 0 && after != before)
            // A hold that fails part-way still ends the change, and drops what was kept.
            try store.add(Fixture.item(group, "x"))
            _ = try Self.read(store, group)
            #expect(throws: StorageError.self) {
                try store.holdingLocks([group]) { () throws(StorageError) in throw StorageError.unavailable("test") }
            }
            #expect(try #require(store.locks.version(of: group)) % 2 == 0)
            #expect(store.recent.entries([PrimaryKey(group: group, account: "x", service: "service")], in: group, at: store.locks.version(of: group) ?? 0, maxAge: 60) == nil)
        }
    }

    @Test("of the items a store adds only the newest 64 are kept (a restore of 2,000 items kept every one); what it reads or updates up to 4,096")
    func addsKeepOnlyTheNewest() throws {
        let recent = RecentItems()
        let group = "G.recentlimit"
        var version: UInt32 = 2
        func entry(_ item: StoredItem, _ index: Int, added: Bool) -> RecentItems.Entry {
            RecentItems.Entry(
                path: "/org/freedesktop/secrets/collection/c/\(index)", envelope: ItemEnvelope(item: item, sequence: UInt64(index)), added: added)
        }
        func kept(_ key: PrimaryKey) -> Bool { recent.entries([key], in: group, at: version, maxAge: 60)?.count == 1 }
        // One item read, one added and then updated: neither is an add any more once changed.
        let read = Fixture.item(group, "read")
        recent.remember([(read.primaryKey, entry(read, 0, added: false))], in: group, at: version)
        let updated = Fixture.item(group, "updated")
        recent.advance(group, from: version, to: version + 2, changes: [updated.primaryKey: entry(updated, 1, added: true)])
        version += 2
        recent.advance(group, from: version, to: version + 2, changes: [updated.primaryKey: entry(updated, 1, added: false)])
        version += 2
        var keys: [PrimaryKey] = []
        for index in 0..<2_000 {
            let item = Fixture.item(group, "a\(index)")
            keys.append(item.primaryKey)
            recent.advance(group, from: version, to: version + 2, changes: [item.primaryKey: entry(item, index + 2, added: true)])
            version += 2
        }
        #expect(keys.suffix(RecentItems.addedLimit).allSatisfy(kept))
        #expect(keys.dropLast(RecentItems.addedLimit).filter(kept).isEmpty)
        #expect(kept(read.primaryKey) && kept(updated.primaryKey))
        // Reads past the item limit start the group afresh: at most 4,096 kept.
        let many = (0..<(RecentItems.itemLimit + 10)).map { Fixture.item(group, "r\($0)") }
        for (index, item) in many.enumerated() {
            recent.remember([(item.primaryKey, entry(item, index, added: false))], in: group, at: version)
        }
        #expect(many.suffix(10).map(\.primaryKey).allSatisfy(kept))
        #expect(!kept(many[0].primaryKey))
    }
}
