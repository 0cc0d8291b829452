import Foundation
import KeychainStorage
import KeychainTestSupport
import SecretServiceStorage
import Synchronization
import Testing

/// What is specific to the Secret Service backend, on the shared private test keyring, in both
/// layouts. (Backend-agnostic semantics live in the conformance suite.)
@Suite("Secret Service store")
struct SecretServiceStoreTests {
    @Test("binary data, generic bytes and exact dates round-trip", arguments: TestKeyring.Layout.allCases)
    func binaryRoundTrip(layout: TestKeyring.Layout) throws {
        let store = try TestKeyring.store(layout)
        let group = TestKeyring.uniqueGroup("binary")
        let all = Data((0...255).map { UInt8($0) })
        let item = Fixture.item(
            group, "acc", "svc", generic: Data([0, 255, 10, 13]), type: 2001, label: "lbl", creator: 0x6578_6D70,
            provenance: Provenance(addedBy: "com.example.app"),
            data: all + all)
        let empty = Fixture.item(group, "empty", "svc", at: 1, data: Data())
        try store.add(item)
        try store.add(empty)
        #expect(try store.items(matching: Fixture.all(group), limit: nil) == [item, empty])
        #expect(try store.items(matching: ItemQuery(groups: [group], generic: Data([0, 255, 10, 13])), limit: nil) == [item])
        #expect(try store.items(matching: ItemQuery(groups: [group], type: 2001), limit: nil) == [item])
        #expect(try store.items(matching: ItemQuery(groups: [group], account: "empty"), limit: 1) == [empty])
    }

    @Test("adding a taken primary key is duplicateItem", arguments: TestKeyring.Layout.allCases)
    func duplicate(layout: TestKeyring.Layout) throws {
        let store = try TestKeyring.store(layout)
        let group = TestKeyring.uniqueGroup("dup")
        let item = Fixture.item(group, "a")
        try store.add(item)
        var other = Fixture.item(group, "a", generic: Data("x".utf8), type: 7, at: 5, data: Data("other".utf8))
        #expect(throws: StorageError.duplicateItem(item.primaryKey)) { try store.add(other) }
        other.service = "another service"
        try store.add(other)
        #expect(try store.items(matching: Fixture.all(group), limit: nil) == [item, other])
    }

    @Test("a query over several groups: one search each, results in creation order", arguments: TestKeyring.Layout.allCases)
    func multiGroup(layout: TestKeyring.Layout) throws {
        let store = try TestKeyring.store(layout)
        let (g1, g2, g3) = (TestKeyring.uniqueGroup("m1"), TestKeyring.uniqueGroup("m2"), TestKeyring.uniqueGroup("m3"))
        let a = Fixture.item(g2, "a", at: 1)
        let b = Fixture.item(g1, "b", at: 2)
        let c = Fixture.item(g3, "c", at: 3)
        let d = Fixture.item(g1, "d", at: 4)
        let e = Fixture.item(g2, "e", type: 9, at: 5)
        for item in [d, a, c, b, e] { try store.add(item) }  // insertion order differs from creation order
        let memory = InMemoryStore()
        for item in [d, a, c, b, e] { try memory.add(item) }
        let query = ItemQuery(groups: [g1, g2, g3])
        #expect(try store.items(matching: query, limit: nil) == [a, b, c, d, e])
        #expect(try store.items(matching: query, limit: nil) == memory.items(matching: query, limit: nil))
        #expect(try store.items(matching: query, limit: 2) == [a, b])
        let typed = ItemQuery(groups: [g1, g2, g3], type: 9)
        #expect(try store.items(matching: typed, limit: nil) == [e])
        // Within one group: insertion order, like memory.
        #expect(try store.items(matching: Fixture.all(g1), limit: nil) == memory.items(matching: Fixture.all(g1), limit: nil))
        #expect(try store.delete(matching: query) == 5)
        #expect(try store.items(matching: query, limit: nil).isEmpty)
    }

    @Test("update in place, and across primary keys, matches the in-memory store", arguments: TestKeyring.Layout.allCases)
    func update(layout: TestKeyring.Layout) throws {
        let store = try TestKeyring.store(layout)
        let memory = InMemoryStore()
        let group = TestKeyring.uniqueGroup("update")
        let items = [
            Fixture.item(group, "a", generic: Data("g".utf8), type: 1, at: 1),
            Fixture.item(group, "b", type: 1, at: 2),
            Fixture.item(group, "c", type: 2, at: 3),
        ]
        for item in items {
            try store.add(item)
            try memory.add(item)
        }
        let later = Fixture.epoch.addingTimeInterval(100)
        func both(_ query: ItemQuery, _ change: ItemChange, at date: Date) throws -> Int {
            let count = try store.update(matching: query, with: change, at: date)
            #expect(try memory.update(matching: query, with: change, at: date) == count)
            #expect(try store.items(matching: Fixture.all(group), limit: nil) == memory.items(matching: Fixture.all(group), limit: nil))
            return count
        }

        // Data only: in place, same position.
        #expect(try both(ItemQuery(groups: [group], account: "a"), ItemChange(data: Data([0, 1, 2])), at: later) == 1)
        // Attributes that are not the key (generic, type): the item keeps its place.
        #expect(try both(ItemQuery(groups: [group], type: 1), ItemChange(generic: Data("new".utf8), type: 3), at: later) == 2)
        #expect(try store.items(matching: ItemQuery(groups: [group], type: 3), limit: nil).count == 2)
        #expect(try store.items(matching: ItemQuery(groups: [group], type: 1), limit: nil).isEmpty)
        // A new primary key: the item moves to the end of its group.
        #expect(try both(ItemQuery(groups: [group], account: "a"), ItemChange(account: "z", label: "renamed"), at: later) == 1)
        #expect(try store.items(matching: ItemQuery(groups: [group], account: "a"), limit: nil).isEmpty)
        #expect(try store.items(matching: ItemQuery(groups: [group], account: "z"), limit: nil).first?.label == "renamed")
        // Onto a taken key: duplicateItem, nothing changes.
        let before = try store.items(matching: Fixture.all(group), limit: nil)
        #expect(throws: StorageError.duplicateItem(PrimaryKey(group: group, account: "b", service: "service"))) {
            try store.update(matching: ItemQuery(groups: [group], account: "c"), with: ItemChange(account: "b"), at: later)
        }
        #expect(try store.items(matching: Fixture.all(group), limit: nil) == before)
        // Two items onto one key: duplicateItem.
        #expect(throws: StorageError.self) {
            try store.update(matching: Fixture.all(group), with: ItemChange(account: "same"), at: later)
        }
        #expect(try store.items(matching: Fixture.all(group), limit: nil) == before)
        // Nothing matched.
        #expect(try both(ItemQuery(groups: [group], account: "nobody"), ItemChange(data: Data()), at: later) == 0)
    }

    @Test("deleting a whole group drops its collection in the per-group layout")
    func wholeGroupDeleteDropsCollection() throws {
        let store = try TestKeyring.store(.collectionPerGroup)
        let group = TestKeyring.uniqueGroup("wipe")
        #expect(try store.collectionPath(forGroup: group) == nil)
        for index in 0..<5 { try store.add(Fixture.item(group, "a\(index)", at: Double(index))) }
        let path = try #require(try store.collectionPath(forGroup: group))
        #expect(path.hasPrefix("/org/freedesktop/secrets/collection/group_2dSKTEST1234_2ewipe"))

        // A partial delete goes item by item and keeps the collection.
        #expect(try store.delete(matching: ItemQuery(groups: [group], account: "a0")) == 1)
        #expect(try store.collectionPath(forGroup: group) == path)

        #expect(try store.delete(matching: Fixture.all(group)) == 4)
        #expect(try store.collectionPath(forGroup: group) == nil)
        #expect(try store.items(matching: Fixture.all(group), limit: nil).isEmpty)
        #expect(try store.delete(matching: Fixture.all(group)) == 0)

        // The next add recreates it.
        let again = Fixture.item(group, "back")
        try store.add(again)
        #expect(try store.collectionPath(forGroup: group) != nil)
        #expect(try store.items(matching: Fixture.all(group), limit: nil) == [again])
    }

    @Test("the default layout deletes item by item", arguments: [true, false])
    func defaultLayoutDelete(wholeGroup: Bool) throws {
        let store = try TestKeyring.store(.defaultCollection)
        let group = TestKeyring.uniqueGroup("plain")
        for index in 0..<4 { try store.add(Fixture.item(group, "a\(index)", type: UInt32(index % 2), at: Double(index))) }
        let query = wholeGroup ? Fixture.all(group) : ItemQuery(groups: [group], type: 1)
        #expect(try store.delete(matching: query) == (wholeGroup ? 4 : 2))
        #expect(try store.items(matching: Fixture.all(group), limit: nil).count == (wholeGroup ? 0 : 2))
    }

    @Test("concurrent adds of one key from many threads: exactly one succeeds", arguments: TestKeyring.Layout.allCases)
    func concurrentAdds(layout: TestKeyring.Layout) throws {
        let group = TestKeyring.uniqueGroup("race")
        // Half the threads share a store, half have their own (as separate processes would).
        let shared = try TestKeyring.store(layout)
        let own = try (0..<8).map { _ in try TestKeyring.store(layout) }
        let successes = Atomic(0)
        let duplicates = Atomic(0)
        let others = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let store = index.isMultiple(of: 2) ? shared : own[index / 2]
            do {
                try store.add(Fixture.item(group, "same", data: Data("writer \(index)".utf8)))
                successes.add(1, ordering: .relaxed)
            } catch StorageError.duplicateItem {
                duplicates.add(1, ordering: .relaxed)
            } catch {
                others.withLock { $0.append("\(error)") }
            }
        }
        #expect(others.withLock { $0 }.isEmpty)
        #expect(successes.load(ordering: .relaxed) == 1)
        #expect(duplicates.load(ordering: .relaxed) == 15)
        #expect(try shared.items(matching: Fixture.all(group), limit: nil).count == 1)
    }

    @Test("items are visible to secret-tool on the keyring's bus", arguments: TestKeyring.Layout.allCases)
    func visibleToSecretTool(layout: TestKeyring.Layout) throws {
        // Shared access: secret-tool talks to the daemon itself, which no test may restart meanwhile.
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout)
            let group = TestKeyring.uniqueGroup("visible")
            try store.add(Fixture.item(group, "alice", "mail", type: 2002))
            let output = try SecretTool.run(["search", "--all", "access-group", group], bus: try TestKeyring.busAddress())
            #expect(output.status == 0)
            #expect(output.text.contains("label = alice @ mail"))
            #expect(output.text.contains("attribute.account = alice"))
            #expect(output.text.contains("attribute.service = mail"))
            #expect(output.text.contains("attribute.type = 2002"))
            #expect(output.text.contains("schema = org.sharedkeychain.GenericPassword"))
        }
    }

    @Test("RawLibsecret does the plain calls on the same daemon")
    func rawLibsecret() throws {
        // Exclusive: RawLibsecret is not a guarded store, and other tests lock or restart.
        try TestKeyring.withExclusiveAccess { keyring in
            let raw = try RawLibsecret(busAddress: keyring.busAddress)
            let group = TestKeyring.uniqueGroup("raw")
            let bytes = Data((0...255).map { UInt8($0) })
            try raw.store(group: group, account: "a", service: "s", data: bytes)
            try raw.store(group: group, account: "b", service: "s", data: Data("two".utf8))
            #expect(try raw.lookup(group: group, account: "a", service: "s") == bytes)
            #expect(try raw.lookup(group: group, account: "nobody", service: "s") == nil)
            #expect(Set(try raw.search(group: group)) == [bytes, Data("two".utf8)])
            #expect(try raw.clear(group: group, account: "a", service: "s"))
            #expect(try raw.search(group: group) == [Data("two".utf8)])
            #expect(try raw.clear(group: group))
            #expect(try raw.search(group: group).isEmpty)
        }
    }
}
