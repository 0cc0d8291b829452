import Foundation
import KeychainStorage
import KeychainTestSupport
import Testing
@testable import SecretServiceStorage

/// The storage contract other Secret Service clients rely on (README, "Storage contract"), tested
/// with the real `secret-tool`: what our items look like to it, how to get their plain secret,
/// and items it writes with our attributes, which the store adopts.
@Suite("Storage contract with other Secret Service clients", .serialized)
struct StorageContractTests {
    func store(_ group: String, label: String, secret: String, _ attributes: [String: String], bus: String) throws {
        let pairs = (["xdg:schema": ItemAttributes.schemaName, "access-group": group].merging(attributes) { $1 })
            .sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        let stored = try SecretTool.run(["store", "--label=\(label)"] + pairs, bus: bus, input: secret)
        #expect(stored.status == 0, "\(stored.text)")
    }

    @Test("an item secret-tool stores with our attributes is adopted: read, updated in its own form, deleted", arguments: TestKeyring.Layout.allCases)
    func externalItemsAreAdopted(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            // Looks for other clients' items on every operation (the default trusts a look for 1 s).
            let store = try TestKeyring.unguardedStore(layout) { $0.foreignItemsRecheckInterval = 0 }
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("contract")
            try store.add(Fixture.item(group, "ours", "mail"))
            try self.store(group, label: "Their token", secret: "plain-secret", [
                "account": "alice", "service": "rt", "type": "2002", "generic": Data("rt-client".utf8).base64EncodedString(),
            ], bus: bus)

            let all = try store.items(matching: ItemQuery(groups: [group]), limit: nil)
            #expect(all.map(\.account).sorted() == ["alice", "ours"])
            let theirs = try #require(try store.items(matching: ItemQuery(groups: [group], account: "alice"), limit: nil).first)
            #expect(theirs.data == Data("plain-secret".utf8))
            #expect(theirs.provenance?.addedBy == Provenance.external && theirs.creator == nil)
            #expect(theirs.label == "Their token")
            #expect(theirs.type == 2002 && theirs.generic == Data("rt-client".utf8))
            #expect(abs(theirs.creationDate.timeIntervalSinceNow) < 120)
            // The emulator's provenance tells them apart.
            #expect(try store.items(matching: ItemQuery(groups: [group], filters: .init(addedBy: Provenance.external)), limit: nil).map(\.account) == ["alice"])

            // Its key is taken: an add of the same key is a duplicate, as for any item.
            #expect(throws: StorageError.duplicateItem(PrimaryKey(group: group, account: "alice", service: "rt"))) {
                try store.add(Fixture.item(group, "alice", "rt"))
            }

            // An update keeps it in the other client's form: secret-tool still reads the plain data.
            let query = ItemQuery(groups: [group], account: "alice", service: "rt")
            #expect(try store.update(matching: query, with: ItemChange(data: Data("rotated".utf8)), at: Date()) == 1)
            let lookup = try SecretTool.run(["lookup", "access-group", group, "account", "alice", "service", "rt"], bus: bus)
            #expect(lookup.text == "rotated")
            #expect(try store.update(matching: query, with: ItemChange(comment: "seen"), at: Date()) == 1)
            #expect(try SecretTool.run(["lookup", "access-group", group, "account", "alice", "service", "rt"], bus: bus).text == "rotated")
            #expect(try store.items(matching: query, limit: nil).first?.provenance?.addedBy == Provenance.external)

            // A whole-group delete takes it too.
            #expect(try store.delete(matching: ItemQuery(groups: [group])) == 2)
            let left = try SecretTool.run(["search", "--all", "access-group", group], bus: bus)
            #expect(!left.text.contains("alice"))
            #expect(try store.items(matching: ItemQuery(groups: [group]), limit: nil).isEmpty)
        }
    }

    @Test("an item with a malformed attribute is refused by name, and nothing else breaks", arguments: [TestKeyring.Layout.collectionPerGroup])
    func malformedExternalItemsAreRefusedClearly(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout) { $0.foreignItemsRecheckInterval = 0 }
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("malformed")
            try self.store(group, label: "bad", secret: "x", ["account": "a", "service": "s", "generic": "not base64!"], bus: bus)
            let error = #expect(throws: StorageError.self) { try store.items(matching: ItemQuery(groups: [group]), limit: nil) }
            guard case .corruptItem(_, let reason)? = error else {
                Issue.record("expected corruptItem, got \(String(describing: error))")
                return
            }
            #expect(reason.contains("generic attribute is not base64"))
            // A query that does not reach it is unaffected.
            try store.add(Fixture.item(group, "b", "other"))
            #expect(try store.items(matching: ItemQuery(groups: [group], account: "b"), limit: nil).count == 1)
            _ = try SecretTool.run(["clear", "access-group", group, "account", "a"], bus: bus)
            #expect(try store.delete(matching: ItemQuery(groups: [group])) == 1)
        }
    }

    /// The per-group layout trusts its last look at the default collection for the recheck
    /// interval while that look found nothing, and only under the same daemon.
    @Test func aLookAtTheDefaultCollectionIsTrustedForTheIntervalUnderOneDaemon() {
        let directory = CollectionDirectory()
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: 3600) == nil)
        directory.noteForeignItems(present: false, epoch: ":1.1")
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: 3600) == false)
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: 0) == nil)
        // Any configured interval compares, none traps: `.infinity` trusts the look for good.
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: .infinity) == false)
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: 1e300) == false)
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: .nan) == nil)
        // A restarted daemon (another unique name) may hold anything.
        #expect(directory.foreignItemsPresent(epoch: ":1.2", within: 3600) == nil)
        directory.noteForeignItems(present: true, epoch: ":1.2")
        #expect(directory.foreignItemsPresent(epoch: ":1.2", within: 3600) == true)
        #expect(directory.foreignItemsPresent(epoch: ":1.1", within: 3600) == nil)
    }

    /// A new store (every CLI command) sees an item another client just wrote; one set not to
    /// adopt never does.
    @Test func aNewStoreSeesANewItemAndOneThatDoesNotAdoptNever() throws {
        try TestKeyring.withSharedAccess {
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("recheck")
            try TestKeyring.unguardedStore(.collectionPerGroup).add(Fixture.item(group, "ours", "s"))
            try store(group, label: "late", secret: "late-secret", ["account": "late", "service": "s"], bus: bus)
            let query = ItemQuery(groups: [group], account: "late")
            #expect(try TestKeyring.unguardedStore(.collectionPerGroup).items(matching: query, limit: nil).map(\.data) == [Data("late-secret".utf8)])
            let own = try TestKeyring.unguardedStore(.collectionPerGroup) { $0.adoptsForeignItems = false }
            #expect(try own.items(matching: query, limit: nil).isEmpty)
            _ = try SecretTool.run(["clear", "access-group", group, "account", "late"], bus: bus)
        }
    }

    @Test("our items: secret-tool finds them by attribute, and the documented one-liner gives the plain secret", arguments: TestKeyring.Layout.allCases)
    func ourSecretIsAnEnvelopeWithAOneLineWayOut(layout: TestKeyring.Layout) throws {
        try TestKeyring.withSharedAccess {
            let store = try TestKeyring.unguardedStore(layout)
            let bus = try TestKeyring.busAddress()
            let group = TestKeyring.uniqueGroup("oneliner")
            var item = Fixture.item(group, "alice", "rt")
            item.data = Data("the-plain-secret".utf8)
            try store.add(item)
            let raw = try SecretTool.run(["lookup", "access-group", group, "account", "alice", "service", "rt"], bus: bus)
            #expect(raw.text.hasPrefix("SKCITEM1"))
            // The README's line, verbatim but for the attribute values.
            let line = """
                secret-tool lookup access-group '\(group)' account alice service rt | python3 -c 'import sys; b = sys.stdin.buffer.read(); sys.stdout.buffer.write(b[12 + int.from_bytes(b[8:12], "big"):])'
                """
            let plain = try runShell(line, bus: bus)
            #expect(plain == "the-plain-secret")
        }
    }

    func runShell(_ line: String, bus: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
